// Tool results are durable as each tool finishes: the real `hermes chat -q` is SIGKILLed while the
// last call of a batch (quick terminal call, two read_files run in parallel, a terminal `sleep`) is
// still running; the finished results are in state.db, and `hermes chat -c` sends them to the model in
// call order, with only the unfinished call answered "No result was recorded".
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sqlite } from '../../src/state/sqlite.ts';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The tool rows of state.db (read-only, while the writer may still run). */
function toolRows(db: string): { tool_call_id: string; content: string }[] {
  if (!existsSync(db)) return [];
  const conn = new (sqlite().DatabaseSync)(db, { readOnly: true });
  try {
    return conn.prepare("SELECT tool_call_id, content FROM messages WHERE role = 'tool' ORDER BY id").all() as { tool_call_id: string; content: string }[];
  } catch {
    return []; // (the schema may not be there yet)
  } finally {
    conn.close();
  }
}

test('a kill mid tool batch keeps every finished result; resuming sends them in call order', async () => {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  default: fake-model\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\ntoolsets: [terminal, file]\n`);
  writeFileSync(join(h, 'a.txt'), 'ALPHA-CONTENT\n');
  writeFileSync(join(h, 'b.txt'), 'BRAVO-CONTENT\n');
  // In a folder of its own: the home's top level is sealed by the OS sandbox (it holds protected files).
  mkdirSync(join(h, 'work'));
  const pidFile = join(h, 'work', 'sleep.pid');
  const calls = [
    { id: 'call_q1', name: 'terminal', arguments: { command: 'echo QUICK-ONE' } },
    { id: 'call_ra', name: 'read_file', arguments: { path: join(h, 'a.txt') } },
    { id: 'call_rb', name: 'read_file', arguments: { path: join(h, 'b.txt') } },
    { id: 'call_slow', name: 'terminal', arguments: { command: `echo $$ > ${pidFile}; exec sleep 300` } },
  ];
  llm.setHandler(() => ({ toolCalls: calls }));
  const child = spawn(process.execPath, [BIN, 'chat', '-q', 'run the four commands'], { cwd: h, env: cleanEnv(h), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.on('exit', r));
  const db = join(h, 'state.db');
  let sleeper = 0;
  try {
    // The slow call is running (its pid is written) and the three finished results are in state.db.
    for (let i = 0; i < 600 && (!existsSync(pidFile) || toolRows(db).length < 3); i++) await sleep(100);
    assert.ok(existsSync(pidFile), `the slow call started\n${out}`);
    sleeper = Number(readFileSync(pidFile, 'utf8').trim());
    const rows = toolRows(db);
    assert.deepEqual(rows.map((r) => r.tool_call_id).sort(), ['call_q1', 'call_ra', 'call_rb'], `finished results are recorded while the batch runs\n${out}`);
    child.kill('SIGKILL');
    await exited;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (sleeper > 0) {
      try {
        process.kill(sleeper, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }

  const rows = toolRows(db);
  assert.deepEqual(rows.map((r) => r.tool_call_id).sort(), ['call_q1', 'call_ra', 'call_rb']);
  assert.match(rows.find((r) => r.tool_call_id === 'call_q1')!.content, /QUICK-ONE/);

  llm.setHandler(() => ({ text: 'Picked up where we were.' }));
  const seen = llm.requests.length;
  const r = await hermes(['chat', '-c', '-q', 'go on'], { home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Picked up where we were/);
  const req = llm.requests.slice(seen).find((x) => JSON.stringify(x.body.messages).includes('go on'))!;
  const tools = (req.body.messages as { role: string; tool_call_id?: string; content: string }[]).filter((m) => m.role === 'tool');
  assert.deepEqual(
    tools.map((m) => m.tool_call_id),
    ['call_q1', 'call_ra', 'call_rb', 'call_slow'],
    'the results follow the calls in call order',
  );
  assert.match(tools[0].content, /QUICK-ONE/);
  assert.match(tools[1].content, /ALPHA-CONTENT/);
  assert.match(tools[2].content, /BRAVO-CONTENT/);
  assert.match(tools[3].content, /No result was recorded/);
});
