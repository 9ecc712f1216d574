// test-timeout: 120
// /sandbox (issue 29) on a real Session against the fake LLM, through the shared registry: it
// shows the session's sandbox; tightening (read-only, network off) applies to the next command at
// once; loosening (mode off, network back on) needs the person's yes in the CLI (a Cancel keeps
// it) and the word confirm on the gateway; reset goes back to config.yaml; bad input gets usage.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand, type Surface } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { ROOT, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--cap-drop', 'ALL', 'true'], { stdio: 'ignore' });
const noBwrap = process.platform !== 'linux' ? 'not Linux' : probe.error || probe.status !== 0 ? 'bubblewrap (bwrap) cannot create a sandbox here' : null;

let fake: FakeLlm;
let server: Server;
let port = 0;
const sessions: Session[] = [];
let outside = '';
before(async () => {
  fake = await startFakeLlm();
  server = createServer((_q, r) => r.end('hello from the host\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  outside = mkdtempSync(join(ROOT, '.tmp', 'sandbox-cmd-'));
});
after(async () => {
  for (const s of sessions) await s.close?.();
  await fake.close();
  server.close();
  rmSync(outside, { recursive: true, force: true });
});

function setup(surface: Surface = 'cli') {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
  const work = join(home, 'work');
  mkdirSync(work);
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home, HOME: home };
  delete env.HERMES_SANDBOX;
  const store = SessionDB.open(join(home, 'state.db'));
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: work, platform: surface === 'cli' ? 'cli' : 'telegram', interactive: true, store: new SqliteSessionStore(store), seedBundledSkills: false, backgroundTasks: false });
  sessions.push(session);
  const answers: string[] = [];
  const asked: string[] = [];
  session.on((e) => {
    if (e.type === 'request' && (e.request as { kind: string }).kind === 'approval') session.answer(e.id, 'once');
    else if (e.type === 'request') {
      asked.push(JSON.stringify(e.request));
      session.answer(e.id, answers.shift() ?? 'Cancel');
    }
  });
  const registry = createCommandRegistry({ home });
  const out = async (line: string) => (await runCommand(registry, line, { session, surface, hooks: {} }))?.output ?? '';
  /** One terminal command through the model; its output. */
  const terminal = async (command: string) => {
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command } }] }, { text: 'Done.' });
    await session.prompt('run it');
    const msgs = fake.requests[fake.requests.length - 1].body.messages as { role: string; content: string }[];
    return String(msgs.filter((m) => m.role === 'tool').pop()?.content ?? '');
  };
  return { home, work, out, terminal, answers, asked };
}

const NET = () => `node -e "require('http').get('http://127.0.0.1:${port}/',r=>r.pipe(process.stdout)).on('error',e=>console.log('conn-error',e.code))"`;

describe('/sandbox', { skip: noBwrap ?? false }, () => {
  it('shows the sandbox, tightens at once, loosens only after the person says yes, resets', async () => {
    const c = setup();
    const shown = await c.out('/sandbox');
    assert.match(shown, /Sandbox: mode workspace-write, network on/);
    assert.match(shown, /Mechanism: bubblewrap/);
    assert.match(shown, new RegExp(`Writable: .*${c.work}`));
    assert.match(shown, /Protected: \d+ paths stay read-only/);

    assert.match(await c.out('/sandbox network off'), /network off \(changed for this session/);
    assert.equal(c.asked.length, 0, 'tightening asks nothing');
    assert.match(await c.terminal(NET()), /conn-error/);
    assert.match(await c.out('/sandbox mode read-only'), /mode read-only, network off/);
    const ro = await c.terminal('touch in-work.txt && echo made');
    assert.match(ro, /Read-only file system/);
    assert.ok(!existsSync(join(c.work, 'in-work.txt')));

    // Loosening: Cancel keeps it; the person's yes applies it.
    assert.match(await c.out('/sandbox mode off'), /Cancelled: the sandbox is unchanged/);
    assert.match(c.asked[0], /Turning the OS sandbox off/);
    assert.match(await c.out('/sandbox'), /mode read-only/);
    c.answers.push('Loosen it for this session');
    assert.match(await c.out('/sandbox mode off'), /mode off, network off[\s\S]*Off: commands run with your full permissions/);
    const file = join(outside, 'off.txt');
    assert.match(await c.terminal(`echo hi > ${file} && echo wrote-outside`), /wrote-outside/);
    assert.ok(existsSync(file));

    // reset: back to config.yaml (workspace-write, network on); turning the network on asks.
    c.answers.push('Loosen it for this session');
    assert.match(await c.out('/sandbox reset'), /Back to config\.yaml\. Sandbox: mode workspace-write, network on/);
    // stderr and stdout come through two pipes: their order in the output is not fixed.
    const afterReset = await c.terminal(`echo hi > ${join(outside, 'after-reset.txt')} || echo refused-after-reset`);
    assert.match(afterReset, /Read-only file system/);
    assert.match(afterReset, /refused-after-reset/);
    assert.match(c.asked[2], /Turning the network on/);
    assert.match(await c.terminal(NET()), /hello from the host/);
  });

  it('network on again needs a yes; bad input gets the usage', async () => {
    const c = setup();
    await c.out('/sandbox network off');
    assert.match(await c.out('/sandbox network on'), /Cancelled/);
    assert.match(c.asked[0], /Turning the network on/);
    assert.match(await c.out('/sandbox mode sideways'), /Unknown mode "sideways": use workspace-write, read-only, off\.\nUsage: \/sandbox/);
    assert.match(await c.out('/sandbox frobnicate'), /Unknown \/sandbox argument "frobnicate"/);
  });

  it('on the gateway a loosening needs the word confirm', async () => {
    const c = setup('gateway');
    assert.match(await c.out('/sandbox mode off'), /Send the command again with the word confirm \(e\.g\. \/sandbox mode off confirm\)/);
    assert.match(await c.out('/sandbox'), /mode workspace-write/);
    assert.match(await c.out('/sandbox mode off confirm'), /mode off/);
    assert.equal(c.asked.length, 0);
  });
});
