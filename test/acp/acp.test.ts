// `hermes acp` end to end: the real binary driven by the ACP SDK's client side as an editor would,
// against the fake LLM. Prompts with tool calls, permission requests answered both ways (commands
// and file edits), cancel mid-turn, slash commands, load/resume/fork/list, model switching.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as acp from '@agentclientprotocol/sdk/unstable';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { agentText, count, initialize, startEditor, type Editor, type Update } from './harness.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const toolMessages = (r: RecordedRequest) => (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => String(m.content));
const userTexts = (r: RecordedRequest) => (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
const isTool = (u: Update): u is Extract<Update, { sessionUpdate: 'tool_call' }> => u.sessionUpdate === 'tool_call';
const isToolUpdate = (u: Update): u is Extract<Update, { sessionUpdate: 'tool_call_update' }> => u.sessionUpdate === 'tool_call_update';

describe('hermes acp', () => {
  let e: Editor;
  before(async () => {
    e = await startEditor(fake);
  });
  after(async () => {
    await e.close();
  });

  it('initializes and advertises sessions, images, MCP and slash commands', async () => {
    const init = await initialize(e);
    assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
    assert.equal(init.agentCapabilities?.mcpCapabilities?.http, true);
    assert.ok(init.agentCapabilities?.sessionCapabilities?.fork);
    assert.equal(init.agentInfo?.name, 'hermes-agent');
    assert.equal(init.authMethods?.[0]?.id, 'hermes');
    await e.agent.request(acp.methods.agent.authenticate, { methodId: 'hermes' });

    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    assert.match(s.sessionId, /^\d{8}_\d{6}_[0-9a-f]{6}$/);
    const model = s.configOptions?.find((o) => o.id === 'model');
    assert.equal(model?.type === 'select' && model.currentValue, 'custom:test-model');
    // The option lists what the provider serves (its /models), not only what config.yaml names.
    const values = model?.type === 'select' ? (model.options as { value: string }[]).map((o) => o.value) : [];
    assert.deepEqual(values, ['custom:test-model', ...fake.models.map((m) => `custom:${m}`)]);
    const cmds = (await e.waitUpdate(s.sessionId, (u) => u.sessionUpdate === 'available_commands_update')) as Extract<Update, { sessionUpdate: 'available_commands_update' }>;
    const names = cmds.availableCommands.map((c) => c.name);
    for (const n of ['help', 'model', 'tools', 'context', 'reset', 'steer', 'queue', 'version', 'reload-mcp']) assert.ok(names.includes(n), `missing /${n} in ${names}`);
  });

  it('streams a prompt with a tool call: tool_call (read, with location) → tool_call_update → answer', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    writeFileSync(join(e.work, 'notes.txt'), 'alpha\nbeta\n');
    const n = fake.requests.length;
    fake.enqueue({ reasoning: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'The file says alpha and beta.' });
    const r = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'what is in notes.txt?' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.ok((r.usage?.totalTokens ?? 0) > 0);
    const ups = e.updates.get(s.sessionId)!;
    const call = ups.find(isTool)!;
    assert.equal(call.kind, 'read');
    assert.equal(call.title, 'Read notes.txt');
    assert.deepEqual(call.locations, [{ path: join(e.work, 'notes.txt') }]);
    const done = ups.find((u) => isToolUpdate(u) && u.toolCallId === call.toolCallId) as Extract<Update, { sessionUpdate: 'tool_call_update' }>;
    assert.equal(done.status, 'completed');
    assert.match(JSON.stringify(done.content), /alpha\\nbeta/);
    assert.ok(ups.some((u) => u.sessionUpdate === 'agent_thought_chunk'));
    assert.equal(agentText(e, s.sessionId), 'The file says alpha and beta.');
    // The tool ran in the session's cwd and its result reached the model.
    assert.match(toolMessages(fake.requests[n + 1])[0], /1\|alpha/);
    assert.equal(fake.requests[n].body.messages[0].role, 'system');
    assert.match(fake.requests[n].body.messages[0].content, /code editor/);
  });

  it('asks before a dangerous command: allowed once it runs, rejected it does not', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    mkdirSync(join(e.work, 'build1', 'x'), { recursive: true });
    mkdirSync(join(e.work, 'build2', 'x'), { recursive: true });
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build1' } }] }, { text: 'removed' });
    const turn = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'clean build1' }] });
    const p = await e.waitPermission();
    assert.equal(p.params.sessionId, s.sessionId);
    assert.equal(p.params.toolCall.kind, 'execute');
    assert.match(String(p.params.toolCall.title), /rm -rf build1/);
    assert.deepEqual(p.params.options.map((o) => o.optionId), ['allow_once', 'allow_session', 'allow_always', 'reject']);
    // The permission is attached to the tool call the editor already shows.
    const call = e.updates.get(s.sessionId)!.find(isTool)!;
    assert.equal(p.params.toolCall.toolCallId, call.toolCallId);
    p.respond('allow_once');
    assert.equal((await turn).stopReason, 'end_turn');
    assert.equal(existsSync(join(e.work, 'build1')), false);

    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build2' } }] }, { text: 'could not' });
    const turn2 = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'clean build2' }] });
    (await e.waitPermission()).respond('reject');
    assert.equal((await turn2).stopReason, 'end_turn');
    assert.equal(existsSync(join(e.work, 'build2', 'x')), true);
    assert.match(toolMessages(fake.requests[n + 1]).at(-1)!, /user denied/);
    const failed = e.updates.get(s.sessionId)!.filter(isToolUpdate).at(-1)!;
    assert.equal(failed.status, 'failed');
  });

  it('asks before file edits with a diff; denied edits change nothing, allowed ones land', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    writeFileSync(join(e.work, 'app.js'), 'const x = 1;\n');
    fake.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'app.js' } }] }, { toolCalls: [{ name: 'patch', arguments: { path: 'app.js', old_string: 'const x = 1;', new_string: 'const x = 2;' } }] }, { text: 'denied' });
    const turn = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'bump x' }] });
    const p = await e.waitPermission();
    assert.equal(p.params.toolCall.kind, 'edit');
    const diff = p.params.toolCall.content?.[0] as { type: string; path: string; oldText: string; newText: string };
    assert.deepEqual(diff, { type: 'diff', path: join(e.work, 'app.js'), oldText: 'const x = 1;\n', newText: 'const x = 2;\n' });
    assert.deepEqual(p.params.options.map((o) => o.optionId), ['allow_once', 'allow_session', 'reject']);
    p.respond('reject');
    await turn;
    assert.equal(readFileSync(join(e.work, 'app.js'), 'utf8'), 'const x = 1;\n');

    fake.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'app.js', content: 'const x = 3;\n' } }] }, { text: 'written' });
    const turn2 = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'set x to 3' }] });
    (await e.waitPermission()).respond('allow_once');
    await turn2;
    assert.equal(readFileSync(join(e.work, 'app.js'), 'utf8'), 'const x = 3;\n');
    const done = e.updates.get(s.sessionId)!.filter(isToolUpdate).at(-1)!;
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.content?.[0], { type: 'diff', path: join(e.work, 'app.js'), oldText: 'const x = 1;\n', newText: 'const x = 3;\n' });
  });

  it('edit approval policy workspace_session: edits inside the workspace go ahead, .env still asks', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    const opts = await e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: 'edit_approval', value: 'workspace_session' });
    const opt = opts.configOptions.find((o) => o.id === 'edit_approval');
    assert.equal(opt?.type === 'select' && opt.currentValue, 'workspace_session');
    fake.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'free.txt', content: 'ok\n' } }] }, { toolCalls: [{ name: 'write_file', arguments: { path: '.env.local', content: 'A=1\n' } }] }, { text: 'done' });
    const turn = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'write files' }] });
    const p = await e.waitPermission();
    assert.match(String(p.params.toolCall.title), /\.env\.local/);
    assert.equal(readFileSync(join(e.work, 'free.txt'), 'utf8'), 'ok\n');
    p.respond('reject');
    await turn;
    assert.equal(existsSync(join(e.work, '.env.local')), false);
  });

  it('cancels a running turn: the prompt ends with stopReason cancelled and the session stays usable', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    fake.setHandler(() => {
      arrived();
      return { hang: true };
    });
    const turn = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'think forever' }] });
    await inFlight;
    fake.setHandler(null);
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
    assert.equal((await turn).stopReason, 'cancelled');
    fake.enqueue({ text: 'back again' });
    const r = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hello?' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.match(agentText(e, s.sessionId), /back again/);
  });

  it('cancel while a permission question is open withdraws it and denies', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    mkdirSync(join(e.work, 'keep', 'x'), { recursive: true });
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf keep' } }] });
    const turn = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'remove keep' }] });
    const p = await e.waitPermission();
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
    assert.equal((await turn).stopReason, 'cancelled');
    p.respond('allow_once'); // too late: the question was withdrawn
    assert.equal(existsSync(join(e.work, 'keep', 'x')), true);
  });

  it('runs slash commands without the model, and passes unknown ones to it', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    const n = fake.requests.length;
    const r = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/version' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.match(agentText(e, s.sessionId), /^hermes \d+\.\d+\.\d+/);
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/context' }] });
    assert.match(agentText(e, s.sessionId), /System prompt:/);
    assert.equal(fake.requests.length, n);
    fake.enqueue({ text: 'no such command here' });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/frobnicate now' }] });
    assert.deepEqual(userTexts(fake.requests[n]), ['/frobnicate now']);
  });

  it('takes image and resource blocks', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    writeFileSync(join(e.work, 'linked.md'), '# Linked doc\n');
    const n = fake.requests.length;
    fake.enqueue({ text: 'seen' });
    await e.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [
        { type: 'text', text: 'compare these' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'resource', resource: { uri: `file://${join(e.work, 'a.ts')}`, text: 'export const a = 1;', mimeType: 'text/x-typescript' } },
        { type: 'resource_link', uri: `file://${join(e.work, 'linked.md')}`, name: 'linked.md' },
      ],
    });
    const user = fake.requests[n].body.messages.at(-1);
    assert.ok(Array.isArray(user.content));
    const text = user.content.filter((p: { type: string }) => p.type === 'text').map((p: { text: string }) => p.text).join('\n');
    assert.match(text, /compare these/);
    assert.match(text, /export const a = 1;/);
    assert.match(text, /# Linked doc/);
    assert.equal(user.content.find((p: { type: string }) => p.type === 'image_url').image_url.url, 'data:image/png;base64,iVBORw0KGgo=');
  });

  it('loads (replaying history), resumes, forks and lists sessions', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    fake.enqueue({ toolCalls: [{ name: 'search_files', arguments: { pattern: 'alpha' } }] }, { text: 'Found alpha.' });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'find alpha' }] });
    const before = count(e, s.sessionId);
    await e.agent.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd: e.work, mcpServers: [] });
    const replay = e.updates.get(s.sessionId)!.slice(before);
    assert.deepEqual(
      replay.filter((u) => u.sessionUpdate !== 'available_commands_update').map((u) => u.sessionUpdate),
      ['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk'],
    );
    assert.equal((replay.find(isTool) as Extract<Update, { sessionUpdate: 'tool_call' }>).kind, 'search');
    const afterLoad = count(e, s.sessionId);
    await e.agent.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd: e.work });
    assert.equal(e.updates.get(s.sessionId)!.slice(afterLoad).filter((u) => u.sessionUpdate !== 'available_commands_update').length, 0);

    const f = await e.agent.request(acp.methods.agent.session.fork, { sessionId: s.sessionId, cwd: e.work });
    assert.notEqual(f.sessionId, s.sessionId);
    const n = fake.requests.length;
    fake.enqueue({ text: 'forked answer' });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: f.sessionId, prompt: [{ type: 'text', text: 'and in the fork?' }] });
    assert.deepEqual(userTexts(fake.requests[n]), ['find alpha', 'and in the fork?']);
    // The original is untouched by the fork's turn.
    fake.enqueue({ text: 'original answer' });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'still there?' }] });
    assert.deepEqual(userTexts(fake.requests[n + 1]), ['find alpha', 'still there?']);

    const list = await e.agent.request(acp.methods.agent.session.list, { cwd: e.work });
    const ids = list.sessions.map((x) => x.sessionId);
    assert.ok(ids.includes(s.sessionId) && ids.includes(f.sessionId));
    assert.match(String(list.sessions.find((x) => x.sessionId === s.sessionId)?.title), /^(find alpha|A generated title( #\d+)?)$/);
    await assert.rejects(e.agent.request(acp.methods.agent.session.load, { sessionId: '20000101_000000_abcdef', cwd: e.work, mcpServers: [] }), /not found/i);
    await assert.rejects(e.agent.request(acp.methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] }), /absolute/);
    await assert.rejects(e.agent.request(acp.methods.agent.session.new, { cwd: join(e.work, 'missing'), mcpServers: [] }), /not a directory/);
  });

  it('switches the model through the model config option', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    const r = await e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: 'model', value: 'custom:other-model' });
    const m = r.configOptions.find((o) => o.id === 'model');
    assert.equal(m?.type === 'select' && m.currentValue, 'custom:other-model');
    const n = fake.requests.length;
    fake.enqueue({ text: 'hi from the other model' });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(fake.requests[n].body.model, 'other-model');
  });

  it('keeps stdout for the protocol: logs go to stderr', () => {
    assert.match(e.stderr(), /hermes acp: initialize: test-editor/);
  });
});

describe('hermes acp with an editor that offers file access and MCP servers', () => {
  let e: Editor;
  before(async () => {
    e = await startEditor(fake, { fs: true });
    await initialize(e, true);
  });
  after(async () => {
    await e.close();
  });

  it('reads and writes files through the editor (unsaved buffers included)', async () => {
    const s = await e.agent.request(acp.methods.agent.session.new, { cwd: e.work, mcpServers: [] });
    await e.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: 'edit_approval', value: 'workspace_session' });
    const file = join(e.work, 'buf.ts');
    writeFileSync(file, 'on disk\n');
    e.buffers.set(file, 'unsaved edit in the editor\n');
    const n = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'buf.ts' } }] },
      { toolCalls: [{ name: 'patch', arguments: { path: 'buf.ts', old_string: 'unsaved edit', new_string: 'agent edit' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'new.ts', content: 'export {};\n' } }] },
      { text: 'done' },
    );
    const r = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'edit buf.ts' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.match(toolMessages(fake.requests[n + 1])[0], /1\|unsaved edit in the editor/);
    assert.equal(e.buffers.get(file), 'agent edit in the editor\n');
    assert.equal(e.buffers.get(join(e.work, 'new.ts')), 'export {};\n');
    assert.equal(readFileSync(file, 'utf8'), 'on disk\n', 'the editor owns the write');
    assert.ok(e.fsCalls.some((c) => c.method === 'write' && c.path === file));
    const diffs = e.updates.get(s.sessionId)!.filter(isToolUpdate).flatMap((u) => (u.content ?? []).filter((c) => c.type === 'diff'));
    assert.deepEqual(diffs[0], { type: 'diff', path: file, oldText: 'unsaved edit in the editor\n', newText: 'agent edit in the editor\n' });
  });

  it('connects MCP servers the editor passes in session/new and gives the model their tools', async () => {
    const { EVERYTHING } = await import('../mcp/servers.ts');
    const s = await e.agent.request(acp.methods.agent.session.new, {
      cwd: e.work,
      mcpServers: [
        { name: 'ev', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] },
        { name: 'down', command: 'hermes-no-such-server-binary', args: [], env: [] },
      ],
    });
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'mcp_ev_echo', arguments: { message: 'from the editor' } }] }, { text: 'echoed' });
    await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'echo it' }] });
    // A server with many tools is offered through tool_search (its tools listed there) and loaded when called.
    assert.ok(JSON.stringify(fake.requests[n].body.tools).includes('mcp_ev_echo'));
    assert.equal(toolMessages(fake.requests[n + 1])[0], JSON.stringify({ result: 'Echo: from the editor' }));
    // The failed server is reported to the person (first message) and the model (system prompt).
    assert.match(agentText(e, s.sessionId), /⚠ MCP server "down" failed to connect: cannot start/);
    assert.match(fake.requests[n].body.messages[0].content, /"down": unavailable/);
    const call = e.updates.get(s.sessionId)!.find(isTool)!;
    assert.equal(call.title.startsWith('mcp_ev_echo'), true);
  });
});

describe('hermes acp sessions persist in state.db', () => {
  it('lists, loads and forks a session after the editor (and hermes acp) restarted', async () => {
    const first = await startEditor(fake);
    await initialize(first);
    const s = await first.agent.request(acp.methods.agent.session.new, { cwd: first.work, mcpServers: [] });
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo persisted' } }] }, { text: 'I ran it.' });
    await first.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'run echo' }] });
    await first.close();

    const again = await startEditor(fake, { home: first.home });
    try {
      await initialize(again);
      const list = await again.agent.request(acp.methods.agent.session.list, {});
      const info = list.sessions.find((x) => x.sessionId === s.sessionId);
      assert.ok(info, JSON.stringify(list));
      assert.equal(info.cwd, first.work);
      await again.agent.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd: first.work, mcpServers: [] });
      const replay = again.updates.get(s.sessionId)!.filter((u) => u.sessionUpdate !== 'available_commands_update');
      assert.deepEqual(replay.map((u) => u.sessionUpdate), ['user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
      assert.equal((replay[1] as Extract<Update, { sessionUpdate: 'tool_call' }>).kind, 'execute');
      assert.match(JSON.stringify(replay[2]), /persisted/);
      const n = fake.requests.length;
      fake.enqueue({ text: 'still here' });
      await again.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
      assert.deepEqual(userTexts(fake.requests[n]), ['run echo', 'and now?']);
      const f = await again.agent.request(acp.methods.agent.session.fork, { sessionId: s.sessionId, cwd: first.work });
      fake.enqueue({ text: 'fork' });
      await again.agent.request(acp.methods.agent.session.prompt, { sessionId: f.sessionId, prompt: [{ type: 'text', text: 'forked' }] });
      assert.deepEqual(userTexts(fake.requests[n + 1]), ['run echo', 'and now?', 'forked']);
    } finally {
      await again.close();
    }
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(join(first.home, 'state.db'), { readOnly: true });
    const rows = db.prepare("SELECT id, source, parent_session_id FROM sessions WHERE source = 'acp' ORDER BY started_at").all() as { id: string; parent_session_id: string | null }[];
    db.close();
    assert.equal(rows.length, 2);
    assert.equal(rows[0].id, s.sessionId);
    assert.equal(rows[1].parent_session_id, s.sessionId);
  });
});

describe('hermes acp --check', () => {
  it('says whether a model is configured', async () => {
    const { hermes, tempHome } = await import('../helpers/cli.ts');
    const home = tempHome();
    const bad = await hermes(['acp', '--check'], { home });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^hermes: not ready: /m);
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
    const ok = await hermes(['acp', '--check'], { home });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /ready — test-model via custom/);
    assert.equal(ok.stdout, '');
  });
});
