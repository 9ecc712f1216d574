// Flags given to `hermes` itself, before or without `chat`, as Python Hermes takes them: the scripted
// one-shot `-z` with `--usage-file`, model/provider/toolset overrides, resume, profiles, --in,
// isolation flags, worktrees and checkpoints. Everything runs the real binary against the fake LLM.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const systemOf = (body: { messages?: { role: string; content: unknown }[] }) => String(body.messages?.find((m) => m.role === 'system')?.content ?? '');
const toolNames = (body: { tools?: { function: { name: string } }[] }) => (body.tools ?? []).map((t) => t.function.name).sort();
const hasGit = spawnSync('git', ['--version']).status === 0;

describe('hermes -z (scripted one-shot)', () => {
  it('prints only the final answer and writes the usage report', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    fake.enqueue({ text: 'Looking.', toolCalls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'x', status: 'completed' }] } }] }, { text: 'Paris.', usage: { input: 120, output: 8, cacheRead: 30 } });
    const usage = join(home, 'out', 'usage.json');
    const r = await hermes(['-z', 'What is the capital of France?', '--usage-file', usage], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Paris.\n', 'only the final text, no intermediate text or tool lines');
    assert.equal(r.stderr, '');
    const rep = JSON.parse(readFileSync(usage, 'utf8'));
    for (const k of ['estimated_cost_usd', 'cost_status', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'total_tokens', 'api_calls', 'model', 'provider', 'session_id', 'completed', 'partial', 'interrupted', 'turn_exit_reason', 'failed', 'service_tier'])
      assert.ok(k in rep, `usage report has ${k}`);
    assert.equal(rep.api_calls, 2);
    assert.equal(rep.model, 'test-model');
    assert.equal(rep.completed, true);
    assert.equal(rep.failed, false);
    assert.equal(rep.turn_exit_reason, 'completed');
    assert.ok(rep.output_tokens >= 8);
    assert.equal(rep.total_tokens, rep.input_tokens + rep.output_tokens);
  });

  it('a provider failure exits 2, says why on stderr, and still writes the usage report', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    fake.enqueue({ status: 401, error: 'invalid api key for test' });
    const usage = join(home, 'usage.json');
    const r = await hermes(['-z', 'hello', '--usage-file', usage], { home });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^hermes -z: .*invalid api key for test/);
    const rep = JSON.parse(readFileSync(usage, 'utf8'));
    assert.equal(rep.failed, true);
    assert.equal(rep.completed, false);
    assert.match(rep.failure, /invalid api key for test/);
    assert.equal(rep.turn_exit_reason, 'error');
  });

  it('a run that cannot start still writes the report; --provider needs --model', async () => {
    const home = tempHome();
    const usage = join(home, 'u.json');
    const r = await hermes(['-z', 'hi', '--usage-file', usage], { home });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^hermes -z: .*provider/i);
    assert.equal(JSON.parse(readFileSync(usage, 'utf8')).failed, true);
    const p = await hermes(['-z', 'hi', '--provider', 'openrouter', '--usage-file', usage], { home });
    assert.equal(p.code, 2);
    assert.match(p.stderr, /--provider requires --model/);
    assert.match(JSON.parse(readFileSync(usage, 'utf8')).failure, /--provider without --model/);
  });
});

describe('global flags before and without chat', () => {
  it('-m, -t and --pass-session-id apply to -z and to chat given after them', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const n = fake.requests.length;
    fake.enqueue({ text: 'one' }, { text: 'two' });
    const a = await hermes(['-m', 'other-model', '-t', 'file,todo', '--pass-session-id', '-z', 'hi'], { home });
    assert.equal(a.code, 0, a.stderr);
    const b = await hermes(['-m', 'third-model', 'chat', '-Q', '-q', 'hi'], { home });
    assert.equal(b.code, 0, b.stderr);
    const [ra, rb] = fake.requests.slice(n);
    assert.equal(ra.body.model, 'other-model');
    assert.deepEqual(toolNames(ra.body), ['patch', 'read_file', 'search_files', 'todo', 'write_file']);
    assert.match(systemOf(ra.body), /\d{8}_\d{6}_[0-9a-f]{6}/, 'the session id is in the system prompt');
    assert.equal(rb.body.model, 'third-model');
    assert.ok(toolNames(rb.body).includes('terminal'), 'no -t: the configured toolsets');
  });

  it('-c and -r continue a session before or without chat', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    fake.enqueue({ text: 'Noted: blue.' }, { text: 'It was blue.' }, { text: 'Still blue.' });
    assert.equal((await hermes(['-z', 'my colour is blue'], { home })).code, 0);
    const n = fake.requests.length;
    const c = await hermes(['-c', '-z', 'what was my colour?'], { home });
    assert.equal(c.code, 0, c.stderr);
    assert.match(JSON.stringify(fake.requests[n].body.messages), /my colour is blue/);
    const r = await hermes(['-r', 'latest', 'chat', '-Q', '-q', 'and now?'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(JSON.stringify(fake.requests[n + 1].body.messages), /what was my colour/);
  });

  it('--in runs in that folder and -c picks that workspace’s latest session', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const a = join(home, 'proj-a');
    const b = join(home, 'proj-b');
    mkdirSync(a);
    mkdirSync(b);
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'pwd' } }] }, { text: 'in a' }, { text: 'in b' });
    const r1 = await hermes(['--in', a, '-z', 'where am i'], { home });
    assert.equal(r1.code, 0, r1.stderr);
    assert.match(JSON.stringify(fake.requests.at(-1)!.body.messages), new RegExp(`${a.replace(/[/\\]/g, '.')}`));
    assert.equal((await hermes(['--in', b, '-z', 'session in b'], { home })).code, 0);
    const n = fake.requests.length;
    fake.enqueue({ text: 'back in a' });
    const c = await hermes(['--in', a, '-c', '-z', 'continue'], { home });
    assert.equal(c.code, 0, c.stderr);
    const msgs = JSON.stringify(fake.requests[n].body.messages);
    assert.match(msgs, /where am i/);
    assert.doesNotMatch(msgs, /session in b/);
    const bad = await hermes(['--in', join(home, 'nope'), '-z', 'x'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--in .*nope: no such directory/);
  });

  it('resuming goes back to the session’s folder unless --no-restore-cwd; a folder that is gone is noted', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const a = join(home, 'proj-a');
    const b = join(home, 'proj-b');
    mkdirSync(a);
    mkdirSync(b);
    const pwdRun = { toolCalls: [{ name: 'terminal', arguments: { command: 'pwd' } }] };
    const lastToolResult = () => String((fake.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').at(-1)?.content ?? '');
    fake.enqueue({ text: 'started in a' });
    assert.equal((await hermes(['chat', '-q', 'begin'], { home, cwd: a })).code, 0);
    fake.enqueue(pwdRun, { text: 'ok' });
    const back = await hermes(['chat', '-c', '-q', 'where now'], { home, cwd: b });
    assert.equal(back.code, 0, back.stderr);
    assert.match(back.stderr, new RegExp(`↪ restored workspace dir: ${a.replace(/[/\\]/g, '.')}`));
    assert.match(lastToolResult(), new RegExp(`${a.replace(/[/\\]/g, '.')}`));
    fake.enqueue(pwdRun, { text: 'ok' });
    const stay = await hermes(['chat', '-c', '--no-restore-cwd', '-q', 'and now'], { home, cwd: b });
    assert.equal(stay.code, 0, stay.stderr);
    assert.doesNotMatch(stay.stderr, /restored workspace dir/);
    assert.match(lastToolResult(), new RegExp(`${b.replace(/[/\\]/g, '.')}`));
    fake.enqueue(pwdRun, { text: 'ok' });
    const z = await hermes(['--no-restore-cwd', '-c', '-z', 'scripted'], { home, cwd: b });
    assert.equal(z.code, 0, z.stderr);
    assert.match(lastToolResult(), new RegExp(`${b.replace(/[/\\]/g, '.')}`));
    const ws = await hermes(['sessions', 'list', '--workspace', 'proj-a'], { home });
    assert.equal(ws.code, 0, ws.stderr);
    assert.match(ws.stdout, /“begin”/);
    assert.equal(ws.stdout.trim().split('\n').length, 2, 'the header and the one session of proj-a');
    assert.match((await hermes(['sessions', 'list', '--workspace', 'nowhere'], { home })).stdout, /No sessions in a workspace matching “nowhere”/);
    rmSync(a, { recursive: true });
    fake.enqueue({ text: 'still fine' });
    const gone = await hermes(['chat', '--resume', 'latest', '-q', 'gone?'], { home, cwd: b });
    assert.equal(gone.code, 0, gone.stderr);
    assert.match(gone.stderr, /workspace dir .*proj-a is gone; staying in .*proj-b/);
  });

  it('-p picks a profile home; the sticky active_profile is the default; a missing profile is an error', async () => {
    const root = homeWithModel(fake.openaiBaseUrl);
    const work = join(root, 'profiles', 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: work-model\n  api_key: k\n`);
    const n = fake.requests.length;
    fake.enqueue({ text: 'w1' }, { text: 'w2' }, { text: 'd' });
    assert.equal((await hermes(['-p', 'work', '-z', 'hi'], { home: root })).code, 0);
    assert.equal(fake.requests[n].body.model, 'work-model');
    writeFileSync(join(root, 'active_profile'), 'work\n');
    assert.equal((await hermes(['chat', '-Q', '-q', 'hi'], { home: root })).code, 0);
    assert.equal(fake.requests[n + 1].body.model, 'work-model', 'the sticky profile');
    assert.equal((await hermes(['--profile', 'default', '-z', 'hi'], { home: root })).code, 0);
    assert.equal(fake.requests[n + 2].body.model, 'test-model', '-p default overrides the sticky profile');
    assert.ok(existsSync(join(work, 'state.db')), 'the profile keeps its own sessions');
    const bad = await hermes(['-p', 'nosuch', '-z', 'hi'], { home: root });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^hermes: Profile 'nosuch' does not exist/);
  });

  it('--ignore-user-config, --ignore-rules and --safe-mode leave out what they promise', async () => {
    const home = homeWithModel(fake.openaiBaseUrl, `agent:\n  system_prompt: MARKER-FROM-CONFIG\nmcp_servers:\n  broken:\n    command: /nonexistent/mcp-server\n`);
    writeFileSync(join(home, '.env'), `OPENAI_BASE_URL=${fake.openaiBaseUrl}\nOPENAI_API_KEY=envkey\n`);
    writeFileSync(join(home, 'SOUL.md'), 'You are SOUL-MARKER.\n');
    mkdirSync(join(home, 'memories'), { recursive: true });
    writeFileSync(join(home, 'memories', 'MEMORY.md'), 'MEMORY-MARKER entry\n');
    writeFileSync(join(home, 'AGENTS.md'), 'AGENTS-MARKER rules\n');
    const n = fake.requests.length;
    fake.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' });
    assert.equal((await hermes(['-z', 'hi'], { home })).code, 0);
    const plain = systemOf(fake.requests[n].body);
    for (const m of ['MARKER-FROM-CONFIG', 'SOUL-MARKER', 'MEMORY-MARKER', 'AGENTS-MARKER']) assert.match(plain, new RegExp(m));
    const iu = await hermes(['--ignore-user-config', '-m', 'test-model', '-z', 'hi'], { home });
    assert.equal(iu.code, 0, iu.stderr);
    assert.doesNotMatch(systemOf(fake.requests[n + 1].body), /MARKER-FROM-CONFIG/);
    assert.equal(fake.requests[n + 1].apiKey, 'envkey', '.env credentials still load');
    assert.equal((await hermes(['--ignore-rules', '-z', 'hi'], { home })).code, 0);
    const ir = systemOf(fake.requests[n + 2].body);
    assert.match(ir, /MARKER-FROM-CONFIG/);
    for (const m of ['SOUL-MARKER', 'MEMORY-MARKER', 'AGENTS-MARKER']) assert.doesNotMatch(ir, new RegExp(m));
    const sm = await hermes(['--safe-mode', '-m', 'test-model', '-z', 'hi'], { home });
    assert.equal(sm.code, 0, sm.stderr);
    assert.equal(sm.stderr, '', 'no MCP server is started, so none fails');
    const s = systemOf(fake.requests[n + 3].body);
    for (const m of ['MARKER-FROM-CONFIG', 'SOUL-MARKER', 'MEMORY-MARKER', 'AGENTS-MARKER']) assert.doesNotMatch(s, new RegExp(m));
  });

  it('-z refuses dangerous commands (nobody can approve) unless --yolo', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    // In a folder of its own: the home's top level is sealed by the OS sandbox (it holds protected files).
    const victim = join(home, 'victims', 'victim');
    mkdirSync(join(victim, 'sub'), { recursive: true });
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] }, { text: 'could not' });
    assert.equal((await hermes(['-z', 'delete it'], { home })).code, 0);
    assert.ok(existsSync(victim), 'denied without --yolo');
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] }, { text: 'deleted' });
    assert.equal((await hermes(['--yolo', '-z', 'delete it'], { home })).code, 0);
    assert.ok(!existsSync(victim), 'runs with --yolo');
  });

  it('-w works in a worktree, kept only when it holds work; --checkpoints snapshots before edits', { skip: hasGit ? false : 'git is not installed' }, async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const repo = join(home, 'repo');
    mkdirSync(repo);
    const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'original\n');
    git('add', '.');
    git('commit', '-qm', 'init');
    // A run that writes a file: the worktree is dirty, so it is kept.
    fake.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'made in the worktree\n' } }] }, { text: 'written' });
    const w = await hermes(['-w', '--checkpoints', '-z', 'write a file'], { home, cwd: repo });
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stdout, 'written\n');
    const kept = /Worktree kept: (\S+) \(branch (hermes\/hermes-[0-9a-f]{8})/.exec(w.stderr);
    assert.ok(kept, w.stderr);
    assert.ok(existsSync(join(kept[1], 'new.txt')));
    assert.ok(!existsSync(join(repo, 'new.txt')), 'the main checkout is untouched');
    assert.match(git('branch', '--list', 'hermes/*'), new RegExp(kept[2].replace('/', '\\/')));
    assert.match(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8'), /^\.worktrees\/$/m);
    // The checkpoint was taken in the worktree before the edit.
    const st = await hermes(['checkpoints'], { home });
    assert.match(st.stdout, new RegExp(`${kept[1].replace(/[.]/g, '\\.')}\\s+1\\s`));
    // A run that changes nothing: the worktree goes away with its branch.
    fake.enqueue({ text: 'nothing to do' });
    const e = await hermes(['-w', '-z', 'just answer'], { home, cwd: repo });
    assert.equal(e.code, 0, e.stderr);
    const gone = /Worktree removed: (\S+) \(nothing to keep\)/.exec(e.stderr);
    assert.ok(gone, e.stderr);
    assert.ok(!existsSync(gone[1]));
    const outside = await hermes(['-w', '-z', 'x'], { home, cwd: home });
    assert.equal(outside.code, 1);
    assert.match(outside.stderr, /--worktree needs a git repository/);
  });
});

describe('hermes --help and the interface flags', () => {
  it('lists --tui, --cli, --dev and --accept-hooks among the global flags; --dev alone says it is ignored', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const r = await hermes(['--help'], { home });
    assert.equal(r.code, 0, r.stderr);
    for (const flag of ['--tui', '--cli', '--dev', '--accept-hooks']) assert.match(r.stdout, new RegExp(`^  ${flag}\\b`, 'm'), flag);
    fake.enqueue({ text: 'ok' });
    const d = await hermes(['--dev', '--cli', '-z', 'hi'], { home });
    assert.equal(d.code, 0, d.stderr);
    assert.equal(d.stdout, 'ok\n');
    assert.match(d.stderr, /--dev only matters with --tui/);
  });
});
