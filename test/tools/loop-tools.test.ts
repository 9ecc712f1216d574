// Real tools inside the agent loop: oversized results spill to files, one turn's results are
// capped, and dangerous commands are refused with a reason the model reads.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { IterationBudget } from '../../src/agent/budget.ts';
import { guardrails } from '../../src/agent/guardrails.ts';
import { runTurn } from '../../src/agent/loop.ts';
import { spilling } from '../../src/agent/spill.ts';
import { steering } from '../../src/agent/steer.ts';
import { textCalls } from '../../src/agent/textcalls/hook.ts';
import { RequestBroker } from '../../src/agent/requests.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import { scripted } from '../helpers/scripted-stream.ts';
import { makeServices, tmp } from './helpers.ts';

function loop(steps: Parameters<typeof scripted>[0], cwd: string) {
  const s = makeServices({ cwd });
  const reg = builtinRegistry();
  const tools = reg.build(['hermes-cli'], s);
  const spillDir = tmp('spill-');
  const sc = scripted(steps);
  return {
    s,
    sc,
    spillDir,
    run: () =>
      runTurn(
        { role: 'user', content: 'go' },
        {
          history: [],
          system: 'S',
          tools,
          stream: sc.stream,
          model: () => 'm',
          broker: new RequestBroker(() => {}, { interactive: false, timeoutMs: 1000 }),
          budget: new IterationBudget(10),
          hooks: [
            textCalls(),
            guardrails(),
            spilling({
              store: async (id, content) => {
                const p = join(spillDir, `${id}.txt`);
                writeFileSync(p, content);
                return p;
              },
            }),
            steering(),
          ],
        },
      ),
  };
}

describe('tools in the loop', () => {
  it('spills a result over 100,000 characters and caps the turn at 200,000', async () => {
    const cwd = tmp();
    mkdirSync(join(cwd, 'big'));
    for (let i = 0; i < 400; i++) writeFileSync(join(cwd, 'big', `f${i}.txt`), `needle ${'z'.repeat(400)}\n`);
    const t = loop(
      [
        {
          toolCalls: [
            { name: 'search_files', arguments: { pattern: 'needle', limit: 1000 }, id: 'c1' },
            { name: 'search_files', arguments: { pattern: 'needle', limit: 400, path: 'big' }, id: 'c2' },
          ],
        },
        { text: 'ok' },
      ],
      cwd,
    );
    const r = await t.run();
    assert.equal(r.completed, true);
    const results = r.messages.filter((m) => m.role === 'tool');
    for (const m of results) {
      assert.match(String(m.content), /^<persisted-output>/);
      const p = /saved at (\S+) —/.exec(String(m.content))![1];
      assert.ok(existsSync(p));
      assert.ok(readFileSync(p, 'utf8').length > 100_000);
    }
    const total = results.reduce((n, m) => n + String(m.content).length, 0);
    assert.ok(total <= 200_000);
  });

  it('refuses a dangerous command with a reason and leaves the files alone', async () => {
    const cwd = tmp();
    writeFileSync(join(cwd, 'precious.txt'), 'keep me');
    const t = loop([{ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${cwd}/*` } }] }, { text: 'I could not delete it.' }], cwd);
    const r = await t.run();
    const tool = r.messages.find((m) => m.role === 'tool')!;
    assert.match(String(tool.content), /needs approval \(recursive delete\).*nobody is here to approve it/);
    assert.ok(existsSync(join(cwd, 'precious.txt')));
    // The model saw the refusal.
    assert.match(JSON.stringify(t.sc.requests[1].messages.at(-1)), /BLOCKED/);
  });

  it('runs file writes to different paths in one step', async () => {
    const cwd = tmp();
    const t = loop(
      [
        {
          toolCalls: [
            { name: 'write_file', arguments: { path: 'a.txt', content: 'A' } },
            { name: 'write_file', arguments: { path: 'b.txt', content: 'B' } },
            { name: 'read_file', arguments: { path: 'a.txt' } },
          ],
        },
        { text: 'done' },
      ],
      cwd,
    );
    const r = await t.run();
    assert.equal(readFileSync(join(cwd, 'a.txt'), 'utf8'), 'A');
    assert.equal(readFileSync(join(cwd, 'b.txt'), 'utf8'), 'B');
    assert.match(String(r.messages.filter((m) => m.role === 'tool')[2].content), /1\|A/);
  });
});
