// The languages where people meet them: a gateway's command replies in French (fake Telegram,
// display.language), the REPL's banner and notices in Japanese (tmux, HERMES_LANGUAGE), and errors
// from the real binary: provider resolution in German, a broken config.yaml in French.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runGateway, type RunningGateway } from '../../src/gateway/daemon.ts';
import { setLocale } from '../../src/i18n/index.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram, type SentCall } from '../helpers/fake-telegram.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';
import { gatewayHome, until, type TestHome } from '../gateway/helpers.ts';

const OWNER = 111;
const STRANGER = 222;
const isText = (chat: number, re: RegExp) => (c: SentCall) => c.method === 'sendMessage' && Number(c.params.chat_id) === chat && re.test(String(c.params.text));

describe('gateway command replies in French (display.language: fr)', () => {
  let llm: FakeLlm;
  let tg: FakeTelegram;
  let t: TestHome;
  let gw: RunningGateway;

  before(async () => {
    llm = await startFakeLlm();
    tg = await startFakeTelegram();
    t = gatewayHome({ llmUrl: llm.openaiBaseUrl, yaml: 'display:\n  language: fr\n', env: { TELEGRAM_BOT_TOKEN: tg.token, TELEGRAM_API_ROOT: tg.url, TELEGRAM_ALLOWED_USERS: String(OWNER) } });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, backgroundTasks: false });
    await until(() => tg.pollers() > 0, 5000, 'the bot to poll');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await tg?.close();
    await llm?.close();
    setLocale('en');
  });

  it('answers /start, /stop, /approve, /help, /status and /new in French', async () => {
    const ask = async (text: string, re: RegExp) => {
      tg.userMessage({ chatId: OWNER, text, username: 'owner' });
      return String((await tg.waitFor(isText(OWNER, re), 10_000, `the reply to ${text}`)).params.text);
    };
    await ask('/start', /Bonjour ! Je suis Hermes/);
    await ask('/stop', /Rien n'est en cours\./);
    await ask('/approve', /Aucune commande en attente d'approbation\./);
    const help = await ask('/help', /Outils et compétences:/);
    assert.match(help, /^Session:/m);
    assert.match(help, /^Configuration:/m);
    const status = await ask('/status', /Modèle:/);
    assert.match(status, /Fournisseur: custom/);
    assert.match(status, /Approbations: demander avant les commandes dangereuses/);
    llm.enqueue({ text: 'Salut !' });
    tg.userMessage({ chatId: OWNER, text: 'bonjour', username: 'owner' });
    await tg.waitFor(isText(OWNER, /Salut/), 10_000, 'the answer');
    const usage = await ask('/usage', /Tours : 1 · Appels API : 1/);
    assert.match(usage, /Entrée : \d+ · Sortie : \d+ · Cache lu : \d+/);
    assert.match(usage, /Coût : /);
    const history = await ask('/history', /vous: bonjour/);
    assert.match(history, /hermes: Salut !/);
    await ask('/new', /Nouvelle session \S+\./);
    await ask('/history', /\(aucun message pour l’instant\)/);
  });

  it('config.yaml type problems are reported in French (`hermes config check`, and a strict load)', async () => {
    const home = tempHome();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${home}/config.yaml`, 'display:\n  language: fr\ncompression:\n  enabled: "yes"\n  threshold: high\n');
    const r = await hermes(['config', 'check'], { home });
    assert.match(r.stdout, /✗ .*config\.yaml ligne 4 : `compression\.enabled` doit valoir true ou false\./);
    assert.match(r.stdout, /✗ .*config\.yaml ligne 5 : `compression\.threshold` doit être un nombre\./);
    const chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.code, 1);
    // The first problem in the file (problems come in the file's order).
    assert.match(chat.stderr, /ligne 4 : `compression\.enabled` doit valoir true ou false\. Corrigez-le avec `hermes config edit` \(1 autre\(s\) problème\(s\) : lancez `hermes config check`\)\./);
    const en = await hermes(['config', 'check'], { home, env: { HERMES_LANGUAGE: 'en' } });
    assert.match(en.stdout, /✗ .*config\.yaml line 4: `compression\.enabled` must be true or false\./, 'English stays as it was');
  });

  it('asks for approval with French buttons and reports the answer in French', async () => {
    const { mkdirSync, existsSync } = await import('node:fs');
    const victim = `${t.home}/victim-dir`;
    mkdirSync(victim, { recursive: true });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] }, { text: 'Pas supprimé.' });
    tg.userMessage({ chatId: OWNER, text: 'supprime le dossier', username: 'owner' });
    const ask = await tg.waitFor(isText(OWNER, /Approbation requise/), 10_000, 'the approval request');
    const keyboard = (ask.params.reply_markup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard.flat();
    assert.deepEqual(keyboard.map((b) => b.text), ['✅ Autoriser une fois', '🔓 Autoriser pour cette session', '📌 Toujours autoriser', '❌ Refuser']);
    tg.pressButton({ chatId: OWNER, userId: 999, messageId: 1, data: keyboard[0].callback_data });
    await tg.waitFor((c) => c.method === 'answerCallbackQuery' && /pas autorisé à répondre/.test(String(c.params.text)), 5000, 'the refusal of a stranger');
    tg.pressButton({ chatId: OWNER, userId: OWNER, messageId: 1, data: keyboard[3].callback_data });
    await tg.waitFor((c) => c.method === 'answerCallbackQuery' && c.params.text === 'Refusé', 5000, 'the ack');
    await tg.waitFor((c) => c.method === 'editMessageText' && /❌ Refusé\./.test(String(c.params.text)), 10_000, 'the updated request');
    await tg.waitFor(isText(OWNER, /Pas supprimé/), 10_000, 'the final answer');
    assert.ok(existsSync(victim), 'denied: nothing ran');
  });

  it('greets a stranger with the pairing code in French', async () => {
    tg.userMessage({ chatId: STRANGER, userId: STRANGER, text: 'hello', username: 'stranger' });
    const r = await tg.waitFor(isText(STRANGER, /code d'appairage/), 10_000, 'the pairing message');
    assert.match(String(r.params.text), /hermes pairing approve telegram [A-Z0-9]{8}/);
    assert.match(String(r.params.text), /Le code expire dans 1 heure\./);
  });
});

describe('the CLI in other languages', () => {
  it('a provider error from the real binary is in German (HERMES_LANGUAGE=de)', async () => {
    const home = tempHome();
    const r = await hermes(['-z', 'hi'], { home, env: { HERMES_LANGUAGE: 'de' } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^hermes(?: -z)?: Kein LLM-Anbieter konfiguriert: setze OPENROUTER_API_KEY .* `hermes setup` aus$/m);
    const en = await hermes(['-z', 'hi'], { home });
    assert.match(en.stderr, /^hermes(?: -z)?: No LLM provider configured: set OPENROUTER_API_KEY/m, 'English stays as it was');
  });

  it('a config.yaml that is not valid YAML is reported in French (HERMES_LANGUAGE=fr)', async () => {
    const home = tempHome();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${home}/config.yaml`, 'model: [\n  bad: {\n');
    const r = await hermes(['status'], { home, env: { HERMES_LANGUAGE: 'fr' } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hermes: .*config\.yaml line \d+ : YAML invalide \(.+\)\. Corrigez le fichier \(`hermes config edit`\)/m);
  });

  it('the REPL shows its banner and notices in Japanese (tmux)', { skip: tmuxAvailable() ?? false }, async () => {
    const llm = await startFakeLlm();
    const home = tempHome();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${home}/config.yaml`, `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  default: test-model\n  api_key: test-key\n`);
    const term = startHermes([], { home, env: { HERMES_LANGUAGE: 'ja', LANG: 'C.UTF-8' } });
    try {
      await term.waitFor(/\/help でコマンド一覧/);
      term.type('/nosuchthing');
      term.keys('Enter');
      await term.waitFor(/不明なコマンド \/nosuchthing です。/);
      term.type('/stop');
      term.keys('Enter');
      await term.waitFor(/実行中のものはありません。/);
      term.type('/status');
      term.keys('Enter');
      await term.waitFor(/承認:\s+危険なコマンドの前に確認/);
    } finally {
      term.kill();
      await llm.close();
    }
  });
});
