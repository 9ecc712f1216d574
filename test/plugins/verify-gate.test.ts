// pre_verify through the real binary: after a turn in which the agent wrote a file, a plugin keeps
// it going once (its message becomes the next user turn); the payload has Hermes's fields; a turn
// without edits never asks; agent.max_verify_nudges bounds a hook that always says continue.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

const plugin = (always: boolean) => `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
export function register(ctx) {
  ctx.register_hook('pre_verify', (p) => {
    appendFileSync(join(import.meta.dirname, 'seen.jsonl'), JSON.stringify(p) + '\\n');
    if (${always} || p.attempt === 0) return { decision: 'block', reason: 'Run the formatter on ' + p.changed_paths.length + ' file(s), then finish.' };
    return null;
  });
}
`;

function home(url: string, always: boolean, yaml = ''): string {
  const h = homeWithModel(url, `plugins:\n  enabled: [gate]\n${yaml}`);
  const dir = join(h, 'plugins', 'gate');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: gate\nversion: 1.0.0\ndescription: verify gate\nkind: standalone\n');
  writeFileSync(join(dir, 'index.mjs'), plugin(always));
  return h;
}
const seen = (h: string) => {
  const f = join(h, 'plugins', 'gate', 'seen.jsonl');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : [];
};
const lastUser = (body: { messages: { role: string; content: unknown }[] }) => {
  const u = body.messages.filter((m) => m.role === 'user').at(-1)!;
  return typeof u.content === 'string' ? u.content : JSON.stringify(u.content);
};

describe('pre_verify', () => {
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
  });
  after(() => llm.close());

  it('a turn that wrote a file is nudged once; the nudge is the next user turn', async () => {
    const h = home(llm.openaiBaseUrl, false);
    llm.requests.length = 0;
    llm.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'hello\n' } }] }, { text: 'wrote it' }, { text: 'formatted and finished' });
    const r = await hermes(['chat', '-q', 'write notes.txt', '--yolo'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /formatted and finished/);
    assert.equal(readFileSync(join(h, 'notes.txt'), 'utf8'), 'hello\n');
    assert.equal(llm.requests.length, 3);
    assert.match(lastUser(llm.requests[2].body), /Run the formatter on 1 file\(s\), then finish\./);
    const calls = seen(h);
    assert.deepEqual(calls.map((c) => c.attempt), [0, 1]);
    assert.deepEqual(calls[0].changed_paths, [join(h, 'notes.txt')]);
    assert.equal(calls[0].final_response, 'wrote it');
    assert.equal(calls[0].platform, 'cli');
    assert.equal(typeof calls[0].coding, 'boolean');
    assert.ok(calls[0].session_id);
  });

  it('no edits, no question; agent.max_verify_nudges bounds a hook that always continues', async () => {
    const quiet = home(llm.openaiBaseUrl, true);
    llm.requests.length = 0;
    llm.enqueue({ text: 'just talking' });
    const r = await hermes(['chat', '-q', 'hi'], { home: quiet });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(llm.requests.length, 1);
    assert.equal(seen(quiet).length, 0);

    const h = home(llm.openaiBaseUrl, true, 'agent:\n  max_verify_nudges: 2\n');
    llm.requests.length = 0;
    llm.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] }, { text: 'one' }, { text: 'two' }, { text: 'three' });
    const b = await hermes(['chat', '-q', 'write a.txt', '--yolo'], { home: h });
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stdout, /three/);
    assert.equal(llm.requests.length, 4, 'the first answer plus two nudged turns');
    assert.deepEqual(seen(h).map((c) => c.attempt), [0, 1]);
  });
});
