// The REPL's inline requests in-process, against a stand-in session: a skill's env var is entered
// masked and saved to .env (0600); typed clarify answers; Enter on an approval denies.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { AgentEvent } from '../../src/agent/types.ts';
import { Repl } from '../../src/cli/repl/app.ts';
import { History } from '../../src/cli/repl/history.ts';
import { makeStyle } from '../../src/cli/repl/style.ts';
import { Terminal } from '../../src/cli/repl/term.ts';
import { stripAnsi } from '../../src/cli/repl/width.ts';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { emptyUsage } from '../../src/llm/types.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { tempHome } from '../helpers/cli.ts';

function harness() {
  const home = tempHome();
  const listeners = new Set<(e: AgentEvent) => void>();
  const answers: [string, unknown][] = [];
  const session = {
    on(fn: (e: AgentEvent) => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    answer(id: string, v: unknown) {
      answers.push([id, v]);
      return true;
    },
    prefs: { toolProgress: 'all', showReasoning: true, busyInputMode: 'interrupt' },
    settings: { config: defaultConfig() },
    info: { home, cwd: home },
    totals: { turns: 0, usage: emptyUsage(), costUsd: null, apiCalls: 0 },
    history: [],
    id: 'test-session',
    busy: false,
  };
  const input = new PassThrough() as unknown as NodeJS.ReadStream;
  const output = Object.assign(new PassThrough(), { columns: 100, rows: 30 }) as unknown as NodeJS.WriteStream;
  let screen = '';
  (output as unknown as PassThrough).on('data', (d: Buffer) => (screen += d.toString('utf8')));
  const repl = new Repl({
    session: session as never,
    registry: createCommandRegistry(),
    term: new Terminal({ input, output }),
    style: makeStyle(false),
    home,
    history: new History(null),
  });
  const done = repl.run();
  const emit = (e: AgentEvent) => {
    for (const l of listeners) l(e);
  };
  const type = async (s: string) => {
    (input as unknown as PassThrough).write(s);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  };
  return { home, answers, emit, type, screen: () => stripAnsi(screen), repl, done };
}

describe('REPL requests', () => {
  it('a skill’s env var: masked, answered, saved to .env 0600, never on screen', async () => {
    const h = harness();
    h.emit({ type: 'request', id: 'r1', request: { kind: 'secret', name: 'GITHUB_TOKEN', prompt: 'The skill github-pr needs GITHUB_TOKEN' } });
    await h.type('');
    assert.match(h.screen(), /🔑 The skill github-pr needs GITHUB_TOKEN/);
    assert.match(h.screen(), /hidden input · Enter to submit · Esc to skip · saved to .*\.env/);
    await h.type('ghp_secretvalue42');
    assert.match(h.screen(), /❯ •{17}/);
    await h.type('\r');
    assert.deepEqual(h.answers, [['r1', 'ghp_secretvalue42']]);
    const env = join(h.home, '.env');
    assert.match(readFileSync(env, 'utf8'), /^GITHUB_TOKEN=ghp_secretvalue42$/m);
    assert.equal(statSync(env).mode & 0o777, 0o600);
    assert.match(h.screen(), /GITHUB_TOKEN entered and saved to/);
    assert.doesNotMatch(h.screen(), /ghp_secret/);
    h.repl.quit();
    await h.done;
  });

  it('clarify takes a typed answer; Esc skips; Enter on an approval denies', async () => {
    const h = harness();
    h.emit({ type: 'request', id: 'c1', request: { kind: 'clarify', question: 'Which branch?', choices: ['main', 'dev'] } });
    await h.type('');
    assert.match(h.screen(), /❓ Which branch\?/);
    await h.type('release-2');
    await h.type('\r');
    h.emit({ type: 'request', id: 'c2', request: { kind: 'clarify', question: 'Anything else?' } });
    await h.type('\x1b');
    h.emit({ type: 'request', id: 'a1', request: { kind: 'approval', command: 'rm -rf build', description: 'recursive delete', choices: ['once', 'session', 'always', 'deny'] } });
    await h.type('');
    assert.match(h.screen(), /Dangerous command — recursive delete/);
    await h.type('x'); // not a choice: ignored
    await h.type('\r');
    assert.deepEqual(h.answers, [
      ['c1', 'release-2'],
      ['c2', ''],
      ['a1', 'deny'],
    ]);
    assert.match(h.screen(), /✗ Denied: rm -rf build/);
    h.repl.quit();
    await h.done;
  });

  it('two requests at once are answered in order', async () => {
    const h = harness();
    const approval = { kind: 'approval' as const, command: 'git push --force', description: 'force push', choices: ['once', 'session', 'always', 'deny'] as ('once' | 'session' | 'always' | 'deny')[] };
    h.emit({ type: 'request', id: 'p1', request: approval });
    h.emit({ type: 'request', id: 'p2', request: { ...approval, command: 'git reset --hard' } });
    await h.type('');
    assert.match(h.screen(), /\(\+1 more waiting\)/);
    await h.type('s');
    await h.type('o');
    assert.deepEqual(h.answers, [
      ['p1', 'session'],
      ['p2', 'once'],
    ]);
    h.repl.quit();
    await h.done;
  });
});
