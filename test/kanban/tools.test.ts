// Who sees which kanban tools: a dispatcher-started worker gets the worker tools (and the task
// protocol in its system prompt) but none of the orchestrator's; a session that asks for the kanban
// toolset gets the orchestrator tools and none of the worker's; `all` and the default toolsets give
// none; subagents never get any.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/state/config.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { hermes } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { kanbanHome, kb, scriptWorkers, type WorkerScript } from './helpers.ts';
import { Slots } from '../../src/state/slots.ts';

const WORKER = ['kanban_show', 'kanban_complete', 'kanban_block', 'kanban_comment', 'kanban_heartbeat', 'kanban_request_review', 'kanban_request_changes'];
const ORCHESTRATOR = ['kanban_create', 'kanban_list', 'kanban_unblock', 'kanban_link'];
const toolNames = (req: RecordedRequest): string[] => ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const systemOf = (req: RecordedRequest): string => String((req.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'system')?.content ?? '');

describe('kanban tool visibility', () => {
  let llm: FakeLlm;
  let script: WorkerScript;
  let home: string;
  const seen: RecordedRequest[] = [];
  before(async () => {
    llm = await startFakeLlm();
    script = scriptWorkers(llm, (req) => (seen.push(req), { text: 'ok' }));
    home = kanbanHome(llm);
  });
  after(async () => llm?.close());

  test('a worker sees the worker tools only, and its task protocol', async () => {
    const id = /Created (t_\w+)/.exec((await kb(home, ['create', 'solo', '--assignee', 'default'])).stdout)![1];
    await kb(home, ['claim', id]);
    const r = await hermes(['chat', '-q', `work kanban task ${id}`], { home, env: { HERMES_KANBAN_TASK: id } });
    assert.equal(r.code, 0, r.stderr);
    const tools = script.tools.get(id)!;
    for (const t of WORKER) assert.ok(tools.includes(t), `worker lacks ${t}: ${tools.join(',')}`);
    for (const t of ORCHESTRATOR) assert.ok(!tools.includes(t), `worker sees ${t}`);
    const first = llm.requests.find((q) => JSON.stringify(q.body.messages).includes(`work kanban task ${id}`))!;
    assert.match(systemOf(first), /# Kanban task/);
    assert.match((await kb(home, ['show', id])).stdout, /status:\s+done/);
  });

  test('kanban_create and friends are refused inside a worker even when asked for by name', async () => {
    seen.length = 0;
    const r = await hermes(['chat', '-q', 'hello', '-t', 'hermes-cli,kanban'], { home, env: { HERMES_KANBAN_TASK: 't_00000000' } });
    assert.equal(r.code, 0, r.stderr);
    const tools = toolNames(seen[0]);
    for (const t of ORCHESTRATOR) assert.ok(!tools.includes(t), `worker sees ${t}`);
    assert.ok(tools.includes('kanban_complete'));
  });

  test('an orchestrator asking for the kanban toolset sees the orchestrator tools only', async () => {
    seen.length = 0;
    const r = await hermes(['chat', '-q', 'hello', '-t', 'hermes-cli,kanban'], { home });
    assert.equal(r.code, 0, r.stderr);
    const tools = toolNames(seen[0]);
    for (const t of ORCHESTRATOR) assert.ok(tools.includes(t), `orchestrator lacks ${t}: ${tools.join(',')}`);
    for (const t of WORKER) assert.ok(!tools.includes(t), `orchestrator sees ${t}`);
    assert.doesNotMatch(systemOf(seen[0]), /# Kanban task/);
  });

  test('neither `all` nor the default toolsets include kanban tools', async () => {
    for (const args of [['-t', 'all'], []]) {
      seen.length = 0;
      const r = await hermes(['chat', '-q', 'hello', ...args], { home });
      assert.equal(r.code, 0, r.stderr);
      const tools = toolNames(seen[0]);
      assert.ok(tools.includes('terminal'), tools.join(','));
      assert.ok(!tools.some((t) => t.startsWith('kanban_')), `${args.join(' ')}: ${tools.filter((t) => t.startsWith('kanban_')).join(',')}`);
    }
  });

  test('subagents get no kanban tools, worker or orchestrator', () => {
    const reg = builtinRegistry();
    const services = (env: NodeJS.ProcessEnv, depth: number): ToolSession => ({
      home,
      config: loadConfig(home, env).config,
      env,
      cwd: home,
      platform: depth ? 'subagent' : 'cli',
      sessionId: 's',
      taskId: 's',
      slots: new Slots(),
      yolo: false,
      depth,
    });
    const names = (env: NodeJS.ProcessEnv, depth: number) => reg.build(['hermes-cli', 'kanban'], services(env, depth)).map((t) => t.name);
    assert.ok(names({ HERMES_KANBAN_TASK: 't_1' }, 0).includes('kanban_complete'));
    assert.ok(names({}, 0).includes('kanban_create'));
    assert.ok(!names({ HERMES_KANBAN_TASK: 't_1' }, 1).some((n) => n.startsWith('kanban_')));
    assert.ok(!names({}, 1).some((n) => n.startsWith('kanban_')));
    // A disabled kanban toolset keeps even the worker tools away.
    assert.ok(!reg.build(['hermes-cli'], services({ HERMES_KANBAN_TASK: 't_1' }, 0), ['kanban']).some((t) => t.name.startsWith('kanban_')));
  });
});
