// Your own servers, remembered by name as Python Hermes keeps them (`custom_providers` in
// config.yaml), each with its own key in .env: switch away and `hermes model custom:<name>` finds
// the URL and key again; a rejected key names the variable it came from; OPENAI_API_KEY is never
// overwritten. The real binary against fake servers that check the key.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { autoEndpointName, endpointNameProblem, splitEndpointModel } from '../../src/state/endpoints.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

let box: FakeLlm;
let other: FakeLlm;
before(async () => {
  box = await startFakeLlm({ requireKey: 'box-key-1234' });
  other = await startFakeLlm({ requireKey: 'other-key-5678' });
});
after(async () => {
  await box?.close();
  await other?.close();
});

const config = (home: string) => parse(readFileSync(join(home, 'config.yaml'), 'utf8')) as Record<string, any>;
const dotenv = (home: string) => readFileSync(join(home, '.env'), 'utf8');

describe('named custom endpoints', () => {
  it('setup remembers the server by name with its own key; OPENAI_API_KEY stays OpenAI’s', async () => {
    const home = tempHome();
    writeFileSync(join(home, '.env'), 'OPENAI_API_KEY=sk-real-openai-key-0000\n', { mode: 0o600 });
    // A name that is not a slug is refused, with the nearest one that is; nothing is written.
    const bad = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--name', 'My Box', '--api-key', 'box-key-1234', '--model', 'fake-model'], { home });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.trim(), 'hermes: --name "My Box" cannot name an endpoint: use lower-case letters, digits and hyphens (it becomes `custom:<name>`, typed in shells and split at colons). Try "my-box".');
    assert.doesNotMatch(dotenv(home), /CUSTOM_/);
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--name', 'my-box', '--api-key', 'box-key-1234', '--model', 'fake-model'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Saved CUSTOM_MY_BOX_API_KEY → /);
    assert.match(r.stdout, /Saved custom_providers: my-box \(http:\/\/127\.0\.0\.1:\d+\/v1, key in CUSTOM_MY_BOX_API_KEY\)/);
    assert.match(dotenv(home), /^OPENAI_API_KEY=sk-real-openai-key-0000$/m);
    assert.match(dotenv(home), /^CUSTOM_MY_BOX_API_KEY=box-key-1234$/m);
    const cfg = config(home);
    assert.deepEqual(cfg.custom_providers, [{ name: 'my-box', base_url: box.openaiBaseUrl, model: 'fake-model', key_env: 'CUSTOM_MY_BOX_API_KEY' }]);
    assert.deepEqual(cfg.model, { provider: 'custom:my-box', default: 'fake-model' });
    assert.doesNotMatch(readFileSync(join(home, 'config.yaml'), 'utf8'), /box-key-1234/, 'no key in config.yaml');

    box.enqueue({ text: 'from the box' });
    const chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, 'from the box\n');
    assert.equal(box.requests.at(-1)!.apiKey, 'box-key-1234');
  });

  it('switching away and back with `hermes model custom:<name>` reuses the URL, key and model', async () => {
    const home = tempHome();
    const setup = (url: string, name: string, key: string) =>
      hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', url, '--name', name, '--api-key', key, '--model', 'fake-model', '--no-test'], { home });
    assert.equal((await setup(box.openaiBaseUrl, 'box', 'box-key-1234')).code, 0);
    assert.equal((await setup(other.openaiBaseUrl, 'other', 'other-key-5678')).code, 0);
    const away = await hermes(['model', 'openrouter:openai/gpt-5'], { home });
    assert.equal(away.code, 0, away.stderr);
    assert.equal(config(home).model.provider, 'openrouter');

    const back = await hermes(['model', 'custom:box'], { home });
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(config(home).model, { provider: 'custom:box', default: 'fake-model' });
    box.enqueue({ text: 'box again' });
    let chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.stdout, 'box again\n', chat.stderr);
    assert.equal(box.requests.at(-1)!.apiKey, 'box-key-1234');

    // custom:<name>:<model> picks another model there and remembers it.
    const large = await hermes(['model', 'custom:other:fake-model-large'], { home });
    assert.equal(large.code, 0, large.stderr);
    assert.deepEqual(config(home).model, { provider: 'custom:other', default: 'fake-model-large' });
    assert.equal(config(home).custom_providers.find((e: { name: string }) => e.name === 'other').model, 'fake-model-large');
    other.enqueue({ text: 'other server' });
    chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.stdout, 'other server\n', chat.stderr);
    assert.equal(other.requests.at(-1)!.apiKey, 'other-key-5678');
    assert.equal(other.requests.at(-1)!.body.model, 'fake-model-large');

    const list = await hermes(['model', '--provider', 'custom:box', '--list'], { home });
    assert.equal(list.stdout, 'fake-model\nfake-model-large\n', list.stderr);
  });

  it('an unknown endpoint name says which ones exist', async () => {
    const home = tempHome();
    await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--name', 'box', '--model', 'fake-model', '--no-test'], { home });
    await hermes(['model', 'openrouter:x'], { home });
    const r = await hermes(['model', 'custom:bxo'], { home });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), 'hermes: No endpoint named "bxo" (yours: custom:box). Did you mean `custom:box`? For a model on a new server, add --base-url <url>.');
  });

  it('a rejected key names the variable it came from, not OPENAI_API_KEY', async () => {
    const home = tempHome();
    writeFileSync(join(home, '.env'), 'OPENAI_API_KEY=sk-real-openai-key-0000\n', { mode: 0o600 });
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--name', 'box', '--api-key', 'stale-key-9999', '--model', 'fake-model', '--no-test'], { home });
    assert.equal(r.code, 0, r.stderr);
    const chat = await hermes(['chat', '-q', 'hi'], { home, env: { HERMES_API_MAX_RETRIES: '0' } });
    assert.notEqual(chat.code, 0);
    assert.match(chat.stderr, /box \(custom endpoint\) \(HTTP 401\).*check CUSTOM_BOX_API_KEY in ~\/\.hermes\/\.env/);
    assert.doesNotMatch(chat.stderr, /OPENAI_API_KEY/);
    assert.equal(box.requests.at(-1)!.apiKey, 'stale-key-9999');
  });

  it('a server that wants a key when none is set says so', async () => {
    const home = tempHome();
    await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--name', 'box', '--model', 'fake-model', '--no-test'], { home });
    const chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.notEqual(chat.code, 0);
    assert.match(chat.stderr, /box \(custom endpoint\) \(HTTP 401\).*it wants an API key and none is set for it: run `hermes setup`/);
  });

  it('reads a config.yaml written by Python Hermes: custom_providers with an inline key', async () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  provider: custom:lab-server\n  default: fake-model\ncustom_providers:\n  - name: Lab Server\n    base_url: ${box.openaiBaseUrl}\n    api_key: box-key-1234\n    model: fake-model\n`,
    );
    box.enqueue({ text: 'lab says hi' });
    const chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, 'lab says hi\n');
    const st = await hermes(['status'], { home });
    assert.match(st.stdout, /Provider\s+custom:lab-server/);
    // `hermes model custom:<name>` also finds it by the name as written.
    const sw = await hermes(['model', 'custom:Lab Server:fake-model-large'], { home });
    assert.equal(sw.code, 0, sw.stderr);
    assert.equal(config(home).model.provider, 'custom:lab-server');
    assert.equal(config(home).custom_providers[0].api_key, 'box-key-1234', 'its own key is left where it is');
  });

  it('a generated name is a slug; custom:<name>:<model> keeps colons in the model; an old-style name with colons keeps working', async () => {
    const home = tempHome();
    const r = await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--api-key', 'box-key-1234', '--model', 'fake-model', '--no-test'], { home });
    assert.equal(r.code, 0, r.stderr);
    const port = new URL(box.openaiBaseUrl).port;
    assert.equal(config(home).model.provider, `custom:local-${port}`);
    assert.equal(config(home).custom_providers[0].key_env, `CUSTOM_LOCAL_${port}_API_KEY`);
    // A model id with colons (as Ollama names them) survives: only the known name is split off.
    const sw = await hermes(['model', `custom:local-${port}:qwen3:8b`], { home });
    assert.equal(sw.code, 0, sw.stderr);
    assert.deepEqual(config(home).model, { provider: `custom:local-${port}`, default: 'qwen3:8b' });
    // A home an older version set up, with a name holding a colon.
    const old = tempHome();
    writeFileSync(
      join(old, 'config.yaml'),
      `model:\n  provider: custom:local-(127.0.0.1:${port})\n  default: fake-model\ncustom_providers:\n  - name: Local (127.0.0.1:${port})\n    base_url: ${box.openaiBaseUrl}\n    api_key: box-key-1234\n    model: fake-model\n`,
    );
    box.enqueue({ text: 'old name still works' });
    const chat = await hermes(['chat', '-q', 'hi'], { home: old });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, 'old name still works\n');
    const sw2 = await hermes(['model', `custom:local-(127.0.0.1:${port}):fake-model-large`], { home: old });
    assert.equal(sw2.code, 0, sw2.stderr);
    assert.deepEqual(config(old).model, { provider: `custom:local-(127.0.0.1:${port})`, default: 'fake-model-large' });
    assert.equal(config(old).custom_providers[0].name, `Local (127.0.0.1:${port})`, 'the old name is kept');
  });

  it('a key in a legacy model block moves to .env with its server when the model changes', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${box.openaiBaseUrl}\n  default: fake-model\n  api_key: box-key-1234\n`);
    const r = await hermes(['model', 'fake-model-large'], { home });
    assert.equal(r.code, 0, r.stderr);
    const cfg = config(home);
    assert.equal(cfg.model.provider, cfg.custom_providers[0].key_env ? `custom:${cfg.custom_providers[0].name.toLowerCase().replace(/ /g, '-')}` : '?');
    assert.doesNotMatch(readFileSync(join(home, 'config.yaml'), 'utf8'), /box-key-1234/);
    assert.match(dotenv(home), new RegExp(`^${cfg.custom_providers[0].key_env}=box-key-1234$`, 'm'));
    box.enqueue({ text: 'still works' });
    const chat = await hermes(['chat', '-q', 'hi'], { home });
    assert.equal(chat.stdout, 'still works\n', chat.stderr);
  });
});

describe('endpoint names', () => {
  it('generates slugs, refuses anything else with the nearest slug, and splits custom:<name>:<model> at a known name only', () => {
    assert.equal(autoEndpointName('http://127.0.0.1:36189/v1'), 'local-36189');
    assert.equal(autoEndpointName('http://localhost/v1'), 'local');
    assert.equal(autoEndpointName('https://abc123-8000.proxy.runpod.net/v1'), 'runpod-abc123-8000');
    assert.equal(autoEndpointName('https://api.Example.com:8443/v1'), 'api-example-com-8443');
    for (const n of ['local-36189', 'box', 'a1-b2']) assert.equal(endpointNameProblem(n), null);
    assert.match(endpointNameProblem('Local (127.0.0.1:36189)')!, /Try "local-127-0-0-1-36189"\.$/);
    assert.match(endpointNameProblem('my:box')!, /Try "my-box"/);
    assert.match(endpointNameProblem('--')!, /Try "my-endpoint"/);
    const config = { providers: {}, custom_providers: [{ name: 'box', base_url: 'http://b/v1' }, { name: 'Local (127.0.0.1:8080)', base_url: 'http://127.0.0.1:8080/v1' }] };
    assert.deepEqual(splitEndpointModel(config, 'box:qwen3:8b')?.model, 'qwen3:8b');
    assert.equal(splitEndpointModel(config, 'box:qwen3:8b')?.endpoint.id, 'custom:box');
    assert.equal(splitEndpointModel(config, 'local-(127.0.0.1:8080):gpt-5')?.model, 'gpt-5');
    assert.equal(splitEndpointModel(config, 'nobody:gpt-5'), undefined);
    assert.equal(splitEndpointModel(config, 'box:'), undefined);
  });
});

const term = gatedSuite(tmuxAvailable());
term.describe('named endpoints in the `hermes model` picker', () => {
  term.it('lists a remembered server as yours and reuses its key', async () => {
    const home = tempHome();
    await hermes(['setup', '--non-interactive', '--provider', 'custom', '--base-url', box.openaiBaseUrl, '--name', 'box', '--api-key', 'box-key-1234', '--model', 'fake-model', '--no-test'], { home });
    await hermes(['model', 'openrouter:openai/gpt-5'], { home });
    const t = startHermes(['model'], { home, cols: 110, rows: 40 });
    try {
      await t.waitFor(/Which inference provider\?/);
      t.type('box');
      await t.waitFor(/● box \(your endpoint\)/);
      t.keys('Enter');
      await t.waitFor(/Use the CUSTOM_BOX_API_KEY already set \(…1234\)\?/);
      t.keys('Enter');
      await t.waitFor(/2 model\(s\) available/);
      await t.waitFor(/Model \(2 from box; type to filter\)/);
      t.type('large');
      await t.waitFor(/● fake-model-large/);
      t.keys('Enter');
      await t.waitFor(/fake-model-large answered in/);
      await t.waitFor(/Now using fake-model-large via box\./);
      assert.equal(await t.exitCode(), 0);
    } finally {
      t.kill();
    }
    assert.deepEqual(config(home).model, { provider: 'custom:box', default: 'fake-model-large' });
    assert.equal(box.requests.at(-1)!.apiKey, 'box-key-1234');
  });
});
