// The message catalogs: all 16 of Hermes's locales, each with every key English has and the same
// {placeholders}; language settings resolve as Hermes's do; the REPL asks for approval in French
// and Japanese (tmux).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { catalogPath, LOCALES, localeFrom, normalizeLocale, t } from '../../src/i18n/index.ts';
import { chatHarness } from '../helpers/chat-harness.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

const { enqueue, home } = chatHarness();

function flat(o: Record<string, unknown>, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('_')) continue;
    if (v && typeof v === 'object') for (const [kk, vv] of flat(v as Record<string, unknown>, `${prefix}${k}.`)) out.set(kk, vv);
    else out.set(`${prefix}${k}`, String(v));
  }
  return out;
}
const load = (code: string) => flat(JSON.parse(readFileSync(catalogPath(code as never), 'utf8')));
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('i18n', () => {
  it('ships exactly Hermes’s 16 locales, each complete with the same placeholders as English', () => {
    const files = readdirSync(join(catalogPath('en'), '..')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    assert.deepEqual(files.sort(), [...LOCALES].sort());
    assert.equal(LOCALES.length, 16);
    const en = load('en');
    for (const code of LOCALES) {
      const c = load(code);
      const missing = [...en.keys()].filter((k) => !c.has(k));
      assert.deepEqual(missing, [], `${code} misses keys`);
      const extra = [...c.keys()].filter((k) => !en.has(k));
      assert.deepEqual(extra, [], `${code} has keys English lacks`);
      for (const [k, v] of en) assert.deepEqual(placeholders(c.get(k)!), placeholders(v), `${code}: ${k} placeholders`);
      if (code !== 'en') assert.notEqual(c.get('approval.header'), en.get('approval.header'), `${code} is translated`);
      for (const choice of ['once', 'session', 'always', 'deny']) assert.match(c.get(`approval.${choice}`)!, new RegExp(`\\[${choice[0]}\\]`), `${code}: approval.${choice} keeps its key letter`);
    }
  });

  it('every catalog key the code asks for exists in English (a missing key fails)', () => {
    const en = load('en');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.ts')) files.push(join(dir, e.name));
      }
    };
    walk(join(import.meta.dirname, '..', '..', 'src'));
    const asked = new Set<string>();
    for (const f of files) {
      const src = readFileSync(f, 'utf8');
      if (!src.includes('i18n/index.ts')) continue;
      // t('a.b') / tr('a.b') with a literal key; template keys (`commands.status_${k}`) are checked below.
      for (const m of src.matchAll(/\b(?:t|tr)\(\s*'([a-z_]+\.[a-z0-9_.]+)'/g)) asked.add(m[1]);
      for (const m of src.matchAll(/\b(?:t|tr)\(\s*`([a-z_]+\.[a-z0-9_]*)\$\{/g)) assert.ok([...en.keys()].some((k) => k.startsWith(m[1])), `${f}: no key starts with ${m[1]}`);
    }
    assert.ok(asked.size > 50, `found ${asked.size} keys`);
    const missing = [...asked].filter((k) => !en.has(k));
    assert.deepEqual(missing, [], 'keys the code uses but en.json lacks');
  });

  it('resolves language settings as Hermes does', () => {
    assert.equal(normalizeLocale('French'), 'fr');
    assert.equal(normalizeLocale('ja_JP'), 'ja');
    assert.equal(normalizeLocale('zh-TW'), 'zh-hant');
    assert.equal(normalizeLocale('pt-BR'), 'pt');
    assert.equal(normalizeLocale('klingon'), null);
    assert.equal(localeFrom({ display: { language: 'de' } }, {}), 'de');
    assert.equal(localeFrom({ display: { language: 'de' } }, { HERMES_LANGUAGE: 'japanese' }), 'ja');
    assert.equal(localeFrom({}, {}), 'en');
    assert.equal(t('approval.denied', { command: 'rm x' }, 'fr'), 'Refusé : rm x');
  });

  for (const [lang, how, header, choice, done] of [
    ['fr', 'config', 'Commande dangereuse', /\[o\] une fois\s+\[s\] session\s+\[a\] toujours\s+\[d\] refuser/, /✗ Refusé : rm -rf/],
    ['ja', 'env', '危険なコマンド', /\[o\] 今回のみ\s+\[s\] このセッション\s+\[a\] 常に許可\s+\[d\] 拒否/, /✗ 拒否しました: rm -rf/],
  ] as const) {
    it(`the REPL asks for approval in ${lang} (${how === 'config' ? 'display.language' : 'HERMES_LANGUAGE'})`, { skip: tmuxAvailable() ?? false }, async () => {
      const h = home(how === 'config' ? `display:\n  language: ${lang}\n` : '');
      const term = startHermes([], { home: h, env: how === 'env' ? { HERMES_LANGUAGE: lang, LANG: 'C.UTF-8' } : { LANG: 'C.UTF-8' } });
      try {
        await term.waitFor(/❯/);
        enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${h}/nothing-here` } }] }, { text: 'ok then' });
        term.type('clean');
        term.keys('Enter');
        const s = await term.waitFor(new RegExp(header));
        assert.match(s, choice);
        term.keys('d');
        await term.waitFor(done);
      } finally {
        term.kill();
      }
    });
  }
});
