// execute_code (real Python/Node scripts calling tools over the Unix-socket RPC), delegate_task
// (child loops), clarify and vision_analyze.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { IterationBudget } from '../../src/agent/budget.ts';
import { runTurn } from '../../src/agent/loop.ts';
import { RequestBroker } from '../../src/agent/requests.ts';
import type { AgentEvent } from '../../src/agent/types.ts';
import { EventStream } from '../../src/llm/event-stream.ts';
import { emptyUsage, type StreamFn, type StreamRequest } from '../../src/llm/types.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import clarify from '../../src/tools/defs/clarify.ts';
import delegateTask, { CHILD_BLOCKED_TOOLS } from '../../src/tools/defs/delegate.ts';
import executeCode from '../../src/tools/defs/execute-code.ts';
import { callToolFrom, ToolRegistry } from '../../src/tools/registry.ts';
import type { ChildResult, ChildSpec, ToolSession } from '../../src/tools/types.ts';
import vision from '../../src/tools/defs/vision.ts';
import { scripted } from '../helpers/scripted-stream.ts';
import { call, makeCtx, makeServices, noPython } from './helpers.ts';
import { Slots } from '../../src/state/slots.ts';

/** Services whose callTool dispatches to the real built-in tools bound to them. */
function withTools(over: Partial<ToolSession> = {}): ToolSession {
  const s = makeServices(over);
  const reg = builtinRegistry();
  const tools = reg.all().map((d) => reg.bind(d, s));
  s.callTool = (name, args, ctx) => callToolFrom(tools, name, args, ctx);
  return s;
}

describe('execute_code', () => {
  it('runs Python that calls tools; only printed output returns', { skip: noPython ?? false }, async () => {
    const s = withTools();
    writeFileSync(join(s.cwd, 'data.txt'), 'alpha\nbeta\ngamma\n');
    const code = [
      'from hermes_tools import read_file, terminal, write_file, search_files',
      'r = read_file("data.txt")',
      'lines = [l.split("|", 1)[1] for l in r["content"].splitlines()]',
      't = terminal("echo $((6*7))")',
      'write_file("out.txt", ",".join(reversed(lines)))',
      'hits = search_files("gam", path=".")',
      'print("lines:", len(lines), "answer:", t["output"].strip(), "hits:", hits["total_count"])',
    ].join('\n');
    const r = await call(executeCode, { code }, s);
    assert.equal(r.json.status, 'success', r.raw);
    assert.equal(r.json.output, 'lines: 3 answer: 42 hits: 2\n');
    assert.equal(r.json.tool_calls_made, 4);
    assert.equal(readFileSync(join(s.cwd, 'out.txt'), 'utf8'), 'gamma,beta,alpha');
    assert.doesNotMatch(r.raw, /1\|alpha/, 'tool results stay inside the script');
  });

  it('runs JavaScript with the same tools (ES module, await)', async () => {
    const s = withTools();
    writeFileSync(join(s.cwd, 'n.txt'), '5\n');
    const code = [
      "import { read_file, terminal } from 'hermes_tools';",
      "const r = await read_file('n.txt');",
      "const n = Number(r.content.split('|')[1]);",
      "const t = await terminal('echo hi', { timeout: 5 });",
      'console.log(n * 2, t.output.trim(), t.exit_code);',
    ].join('\n');
    const r = await call(executeCode, { code, language: 'javascript' }, s);
    assert.equal(r.json.status, 'success', r.raw);
    assert.equal(r.json.output, '10 hi 0\n');
    assert.equal(r.json.tool_calls_made, 2);
  });

  it('enforces the tool-call limit', { skip: noPython ?? false }, async () => {
    const s = withTools();
    s.config.code_execution.max_tool_calls = 3;
    const code = [
      'from hermes_tools import terminal, HermesToolError',
      'ok = err = 0',
      'for i in range(5):',
      '    try:',
      '        terminal("true"); ok += 1',
      '    except HermesToolError as e:',
      '        err += 1; last = str(e)',
      'print(ok, err, last)',
    ].join('\n');
    const r = await call(executeCode, { code }, s);
    assert.match(r.json.output, /^3 2 This script reached the limit of 3 tool calls/);
    assert.equal(r.json.tool_calls_made, 3);
  });

  it('scrubs secret-looking variables from the script environment', { skip: noPython ?? false }, async () => {
    const s = withTools({ env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'ghp_x', DB_PASSWORD: 'p', HERMES_YOLO_MODE: '1', PLAIN: 'yes' } });
    const r = await call(executeCode, { code: 'import os\nprint(sorted(k for k in ["OPENAI_API_KEY","GITHUB_TOKEN","DB_PASSWORD","HERMES_YOLO_MODE","PLAIN"] if k in os.environ))' }, s);
    assert.equal(r.json.output, "['PLAIN']\n");
  });

  it('dangerous commands inside scripts still need approval', { skip: noPython ?? false }, async () => {
    const s = withTools();
    const r = await call(executeCode, { code: 'from hermes_tools import terminal\nprint(terminal("rm -rf build")["status"])' }, s);
    assert.equal(r.json.output, 'denied\n');
  });

  it('reports errors, timeouts and interrupts', { skip: noPython ?? false }, async () => {
    const s = withTools();
    const bad = await call(executeCode, { code: 'raise ValueError("boom")' }, s);
    assert.equal(bad.json.status, 'error');
    assert.match(bad.json.error, /ValueError: boom/);
    s.config.code_execution.timeout = 5; // python3 can take seconds to start on a loaded machine
    const slow = await call(executeCode, { code: 'import time\nprint("before", flush=True)\ntime.sleep(30)' }, s);
    assert.equal(slow.json.status, 'timeout');
    assert.equal(slow.json.output, 'before\n');
    s.config.code_execution.timeout = 300;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const intr = await call(executeCode, { code: 'setInterval(() => {}, 1000)', language: 'javascript' }, s, makeCtx({ signal: ac.signal }));
    assert.equal(intr.json.status, 'interrupted');
  });

  it('caps printed output and keeps the full text in a file', { skip: noPython ?? false }, async () => {
    const s = withTools();
    const r = await call(executeCode, { code: 'print("x" * 200000)' }, s);
    assert.ok(r.json.output.length < 51_000);
    assert.ok(existsSync(r.json.full_output_path));
    assert.equal(readFileSync(r.json.full_output_path, 'utf8').length, 200_001);
  });

  it('is hidden when the session cannot dispatch tools', () => {
    const reg = new ToolRegistry();
    reg.register(executeCode);
    assert.equal(reg.availability(makeServices())[0].available, false);
  });
});

describe('delegate_task', () => {
  const fakeChild = (specs: ChildSpec[], answer: (spec: ChildSpec) => Partial<ChildResult> = () => ({})) => async (spec: ChildSpec): Promise<ChildResult> => {
    specs.push(spec);
    return { status: 'completed', summary: `done: ${spec.goal}`, apiCalls: 1, iterations: 1, toolTrace: ['read_file'], ...answer(spec) };
  };

  it('runs one child with the restricted tool list and returns only its summary', async () => {
    const specs: ChildSpec[] = [];
    const s = makeServices({ spawnChild: fakeChild(specs) });
    const r = await call(delegateTask, { goal: 'count files', context: 'in src/' }, s);
    assert.equal(r.json.results[0].summary, 'done: count files');
    assert.equal(r.json.results[0].status, 'completed');
    assert.equal(specs[0].maxIterations, 50);
    for (const t of [...CHILD_BLOCKED_TOOLS, 'delegate_task']) assert.ok(specs[0].blockedTools.includes(t), t);
    assert.match(specs[0].systemPrompt, /count files[\s\S]*in src\//);
  });

  it('runs a batch in parallel, up to max_concurrent_children', async () => {
    const specs: ChildSpec[] = [];
    let active = 0;
    let peak = 0;
    const s = makeServices({
      spawnChild: async (spec) => {
        specs.push(spec);
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 30));
        active--;
        return { status: 'completed', summary: spec.goal, apiCalls: 1, iterations: 1, toolTrace: [] };
      },
    });
    const r = await call(delegateTask, { tasks: [{ goal: 'a' }, { goal: 'b' }, { goal: 'c' }] }, s);
    assert.deepEqual(r.json.results.map((x: any) => x.summary), ['a', 'b', 'c']);
    assert.equal(peak, 3);
    const tooMany = await call(delegateTask, { tasks: [{ goal: 'a' }, { goal: 'b' }, { goal: 'c' }, { goal: 'd' }] }, s);
    assert.match(tooMany.json.error, /At most 3 subagents/);
  });

  it('enforces the spawn depth; orchestrators may delegate when configured, leaves never', async () => {
    const specs: ChildSpec[] = [];
    const child = makeServices({ spawnChild: fakeChild(specs), depth: 1 });
    assert.match((await call(delegateTask, { goal: 'x' }, child)).json.error, /max_spawn_depth is 1/);
    const parent = makeServices({ spawnChild: fakeChild(specs) });
    parent.config.delegation.max_spawn_depth = 2;
    const leaf = await call(delegateTask, { goal: 'y' }, parent);
    assert.ok(specs.at(-1)!.blockedTools.includes('delegate_task'), 'a leaf (the default) cannot delegate');
    assert.equal(leaf.json.results[0].role, 'leaf');
    const orch = await call(delegateTask, { goal: 'y', role: 'orchestrator' }, parent);
    assert.ok(!specs.at(-1)!.blockedTools.includes('delegate_task'));
    assert.equal(orch.json.results[0].role, 'orchestrator');
    // Per-task role overrides the top-level one.
    await call(delegateTask, { role: 'orchestrator', tasks: [{ goal: 'a' }, { goal: 'b', role: 'leaf' }] }, parent);
    assert.deepEqual(specs.slice(-2).map((x) => x.role), ['orchestrator', 'leaf']);
    // The kill switch and the depth limit both turn an orchestrator into a leaf.
    parent.config.delegation.orchestrator_enabled = false;
    await call(delegateTask, { goal: 'y', role: 'orchestrator' }, parent);
    assert.ok(specs.at(-1)!.blockedTools.includes('delegate_task'));
    parent.config.delegation.orchestrator_enabled = true;
    parent.config.delegation.max_spawn_depth = 1;
    assert.equal((await call(delegateTask, { goal: 'y', role: 'orchestrator' }, parent)).json.results[0].role, 'leaf');
    parent.config.delegation.max_spawn_depth = 9;
    const deep = makeServices({ spawnChild: fakeChild(specs), depth: 3 });
    deep.config.delegation.max_spawn_depth = 9;
    assert.match((await call(delegateTask, { goal: 'z' }, deep)).json.error, /max_spawn_depth is 3/, 'capped at 3');
  });

  it('caps long summaries, spilling the full text', async () => {
    const s = makeServices({ spawnChild: fakeChild([], () => ({ summary: 'y'.repeat(30_000) })) });
    const r = await call(delegateTask, { goal: 'big' }, s);
    assert.ok(r.json.results[0].summary.length < 24_200);
    assert.match(r.json.results[0].summary, /full text in .*delegation/);
  });

  it('passes the interrupt to children', async () => {
    const ac = new AbortController();
    const s = makeServices({
      spawnChild: (spec) =>
        new Promise((resolve) => spec.signal.addEventListener('abort', () => resolve({ status: 'interrupted', summary: '', apiCalls: 0, iterations: 0, toolTrace: [] }), { once: true })),
    });
    setTimeout(() => ac.abort(), 50);
    const r = await call(delegateTask, { goal: 'wait' }, s, makeCtx({ signal: ac.signal }));
    assert.equal(r.json.results[0].status, 'interrupted');
  });

  it('a real child loop: own budget, restricted tools, summary only', async () => {
    // The child is a real agent loop over the built-in tools (scripted model), like Session builds.
    const parent = makeServices();
    writeFileSync(join(parent.cwd, 'notes.md'), 'secret plan: ship on friday\n');
    const reg = builtinRegistry();
    const childRequests: StreamRequest[] = [];
    parent.spawnChild = async (spec) => {
      const cs: ToolSession = { ...parent, slots: new Slots(), depth: 1, taskId: 'child' };
      const tools = reg.all().filter((d) => !spec.blockedTools.includes(d.name)).map((d) => reg.bind(d, cs));
      const sc = scripted([{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }, (req) => ({ text: `Found: ${String(req.messages.at(-1)!.content).includes('friday') ? 'ships friday' : '??'}` })]);
      const trace: string[] = [];
      const r = await runTurn(
        { role: 'user', content: spec.goal },
        {
          history: [],
          system: spec.systemPrompt,
          tools,
          stream: (req) => {
            childRequests.push(req);
            return sc.stream(req);
          },
          model: () => 'm',
          broker: new RequestBroker(() => {}, { interactive: false, timeoutMs: 1000 }),
          budget: new IterationBudget(spec.maxIterations),
          signal: spec.signal,
          emit: (e: AgentEvent) => {
            if (e.type === 'tool_start') trace.push(e.name);
            spec.onEvent?.(e);
          },
        },
      );
      return { status: r.completed ? 'completed' : 'failed', summary: r.finalText, apiCalls: r.apiCalls, iterations: r.iterations, toolTrace: trace };
    };
    const progress: string[] = [];
    const r = await call(delegateTask, { goal: 'When do we ship?' }, parent, makeCtx({ progress }));
    assert.equal(r.json.results[0].summary, 'Found: ships friday');
    assert.deepEqual(r.json.results[0].tools_used, ['read_file']);
    assert.doesNotMatch(r.raw, /secret plan/, 'the file content stayed in the child');
    const offered = childRequests[0].tools.map((t) => t.name);
    for (const t of ['delegate_task', 'clarify', 'execute_code']) assert.ok(!offered.includes(t), t);
    assert.ok(offered.includes('read_file'));
    assert.ok(progress.some((p) => p.includes('read_file')));
  });
});

describe('clarify', () => {
  it('asks with choices and returns the answer', async () => {
    const asked: any[] = [];
    const r = await call(clarify, { question: 'Which DB?', choices: ['sqlite', 'postgres'] }, makeServices(), makeCtx({ asked, answer: () => ({ answer: 'postgres' }) }));
    assert.deepEqual(asked[0], { kind: 'clarify', question: 'Which DB?', choices: ['sqlite', 'postgres'] });
    assert.equal(r.json.user_response, 'postgres');
    assert.deepEqual(r.json.choices_offered, ['sqlite', 'postgres']);
  });
  it('tells the model when nobody can answer, or nobody did', async () => {
    const none = await call(clarify, { question: 'Q?' }, makeServices());
    assert.match(none.json.error, /Nobody can answer/);
    const late = await call(clarify, { question: 'Q?' }, makeServices(), makeCtx({ answer: () => ({ answer: '', source: 'timeout' }) }));
    assert.equal(late.json.user_response, null);
    assert.match(late.json.note, /did not respond within 60m/);
  });
  it('rejects more than 4 choices', async () => {
    const r = await call(clarify, { question: 'Q?', choices: ['a', 'b', 'c', 'd', 'e'] }, makeServices());
    assert.match(r.json.error, /Invalid arguments/);
  });
});

describe('vision_analyze', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d2b0a20000000049454e44ae426082', 'hex');
  const visionModel = (seen: StreamRequest[]): StreamFn => (req) => {
    seen.push(req);
    const out = new EventStream();
    const parts = req.messages[0].content as any[];
    const url: string = parts.find((p) => p.type === 'image_url').image_url.url;
    queueMicrotask(() =>
      out.end({ message: { role: 'assistant', content: `I see a ${url.slice(5, url.indexOf(';'))} (${parts[0].text})` }, stopReason: 'stop', usage: emptyUsage(), model: 'vis', provider: 'fake' }),
    );
    return out;
  };

  it('sends a local image to the auxiliary vision model', async () => {
    const seen: StreamRequest[] = [];
    const s = makeServices({ auxiliary: (task) => (task === 'vision' ? { stream: visionModel(seen), model: 'vis-1', provider: 'fake' } : null) });
    writeFileSync(join(s.cwd, 'dot.png'), PNG);
    const r = await call(vision, { image_url: 'dot.png', question: 'what colour?' }, s);
    assert.equal(r.json.analysis, 'I see a image/png (what colour?)');
    assert.equal(r.json.model, 'vis-1');
    assert.equal(seen[0].model, 'vis-1');
  });

  it('downloads URLs through the SSRF-safe fetcher', async () => {
    const srv = createServer((_q, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/i.png`;
    const seen: StreamRequest[] = [];
    const s = makeServices({ auxiliary: () => ({ stream: visionModel(seen), model: 'v', provider: 'fake' }) });
    const blocked = await call(vision, { image_url: url, question: 'q' }, s);
    assert.match(blocked.json.error, /Blocked/);
    s.env.HERMES_ALLOW_PRIVATE_URLS = '1';
    const r = await call(vision, { image_url: url, question: 'q' }, s);
    assert.match(r.json.analysis, /image\/png/);
    srv.close();
  });

  it('refuses non-images and is hidden without a vision model', async () => {
    const s = makeServices({ auxiliary: () => ({ stream: visionModel([]), model: 'v', provider: 'fake' }) });
    writeFileSync(join(s.cwd, 'x.txt'), 'hello');
    assert.match((await call(vision, { image_url: 'x.txt', question: 'q' }, s)).json.error, /not an image format/);
    const reg = new ToolRegistry();
    reg.register(vision);
    assert.equal(reg.availability(makeServices())[0].available, false);
  });
});
