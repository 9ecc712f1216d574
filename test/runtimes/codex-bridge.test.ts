// The approval bridge (codex's server requests → Hermes's approval flow) and the codex CLI checks.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AgentRequest, Answered } from '../../src/agent/types.ts';
import { decisionFor, serverRequestHandler, type BridgeDeps } from '../../src/runners/codex/approvals.ts';
import { codexHome, codexHomeProblem, codexStatus, codexTmpdir, compareVersions, parseCodexVersion } from '../../src/runners/codex/binary.ts';
import { deriveCodexConfig } from '../../src/runners/codex/derive.ts';
import type { ServerRequest } from '../../src/runners/codex/protocol/ServerRequest.ts';
import { applyCodexRuntime, parseRuntimeArg } from '../../src/runners/codex/switch.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { ROOT } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'codex-bridge-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The approval request codex 0.169 really sent (test/fixtures/codex/exec-approved.jsonl). */
function capturedApproval(): ServerRequest {
  const line = readFileSync(join(ROOT, 'test', 'fixtures', 'codex', 'exec-approved.jsonl'), 'utf8')
    .split('\n')
    .find((l) => l.includes('"kind":"request"'))!;
  const r = JSON.parse(line) as { method: string; params: unknown };
  return { method: r.method, id: 0, params: r.params } as ServerRequest;
}

function bridge(answer: (req: AgentRequest) => Answered<AgentRequest>, opts: { yolo?: boolean; platform?: string; approvals?: Record<string, unknown> } = {}) {
  const asked: AgentRequest[] = [];
  const warnings: string[] = [];
  const config = defaultConfig();
  Object.assign(config.approvals, opts.approvals ?? {});
  const deps: BridgeDeps = {
    ask: async <R extends AgentRequest>(req: R) => {
      asked.push(req);
      return answer(req) as Answered<R>;
    },
    services: { yolo: !!opts.yolo, config, platform: opts.platform ?? 'cli', depth: 0 },
    cwd: '/work/session-cwd',
    fileChange: (id) => (id === 'fc1' ? '1 add, 1 update: new.py, old.py' : undefined),
    warn: (m) => warnings.push(m),
  };
  return { handle: serverRequestHandler(deps), asked, warnings };
}

const person = (answer: string) => () => ({ answer, source: 'person' }) as Answered<AgentRequest>;

describe('approval bridge', () => {
  it('maps Hermes answers to codex decisions', () => {
    assert.equal(decisionFor('once'), 'accept');
    assert.equal(decisionFor('session'), 'acceptForSession');
    assert.equal(decisionFor('always'), 'acceptForSession');
    assert.equal(decisionFor('deny'), 'decline');
    assert.equal(decisionFor(undefined), 'decline');
  });

  it('asks the person with the command, cwd and reason of the captured request', async () => {
    const b = bridge(person('once'));
    assert.deepEqual(await b.handle(capturedApproval()), { decision: 'accept' });
    const req = b.asked[0] as Extract<AgentRequest, { kind: 'approval' }>;
    assert.equal(req.kind, 'approval');
    assert.match(req.command, /echo proof > proof\.txt/);
    assert.match(req.description, /^Codex wants to run this in .*ws-.* — write proof\.txt$/);
    assert.deepEqual(req.choices, ['once', 'session', 'deny']);
    assert.deepEqual(await bridge(person('session')).handle(capturedApproval()), { decision: 'acceptForSession' });
    assert.deepEqual(await bridge(person('deny')).handle(capturedApproval()), { decision: 'decline' });
  });

  it('falls back to the session cwd, never an empty one', async () => {
    const b = bridge(person('once'));
    await b.handle({ method: 'item/commandExecution/requestApproval', id: 1, params: { kind: 'command', threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0, environmentId: null, command: 'make' } } as ServerRequest);
    assert.match((b.asked[0] as { description: string }).description, /in \/work\/session-cwd$/);
  });

  it('declines hardline-blocked commands and approvals.deny rules without asking', async () => {
    const b = bridge(person('once'), { yolo: true });
    const r = await b.handle({ method: 'item/commandExecution/requestApproval', id: 1, params: { kind: 'command', threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0, environmentId: null, command: "/bin/bash -lc 'rm -rf /'", commandActions: [{ type: 'unknown', command: 'rm -rf /' }] } } as ServerRequest);
    assert.deepEqual(r, { decision: 'decline' });
    assert.equal(b.asked.length, 0);
    assert.match(b.warnings[0], /Declined codex's request to run/);
    const d = bridge(person('once'), { approvals: { deny: ['git push*'] } });
    assert.deepEqual(await d.handle({ method: 'item/commandExecution/requestApproval', id: 2, params: { kind: 'command', threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0, environmentId: null, command: 'git push origin main' } } as ServerRequest), { decision: 'decline' });
  });

  it('yolo accepts; nobody to ask declines unless the unattended policy approves', async () => {
    const yolo = bridge(person('deny'), { yolo: true });
    assert.deepEqual(await yolo.handle(capturedApproval()), { decision: 'accept' });
    assert.equal(yolo.asked.length, 0);
    const nobody = () => ({ answer: 'deny', source: 'no_responder' }) as Answered<AgentRequest>;
    assert.deepEqual(await bridge(nobody, { platform: 'cron' }).handle(capturedApproval()), { decision: 'decline' });
    assert.deepEqual(await bridge(nobody, { platform: 'cron', approvals: { cron_mode: 'approve' } }).handle(capturedApproval()), { decision: 'accept' });
  });

  it('shows the file-change summary cached from item/started', async () => {
    const b = bridge(person('once'));
    const r = await b.handle({ method: 'item/fileChange/requestApproval', id: 3, params: { threadId: 't', turnId: 'u', itemId: 'fc1', startedAtMs: 0, reason: null, grantRoot: null } } as ServerRequest);
    assert.deepEqual(r, { decision: 'accept' });
    assert.equal((b.asked[0] as { command: string }).command, 'apply_patch: 1 add, 1 update: new.py, old.py');
  });

  it('declines permission escalations, accepts hermes-tools, asks about other MCP tools, rejects unknown methods', async () => {
    const b = bridge(person('session'));
    assert.deepEqual(await b.handle({ method: 'item/permissions/requestApproval', id: 4, params: { threadId: 't', turnId: 'u', itemId: 'i', environmentId: null, startedAtMs: 0, cwd: '/', reason: 'network', permissions: {} } } as ServerRequest), { permissions: {}, scope: 'turn' });
    const mcp = (serverName: string) => ({ method: 'mcpServer/elicitation/request', id: 5, params: { threadId: 't', turnId: 'u', serverName, mode: 'form', _meta: { codex_approval_kind: 'mcp_tool_call', tool_name: 'read', tool_params: { path: '/x' } }, message: 'Allow?', requestedSchema: { type: 'object', properties: {} } } }) as ServerRequest;
    assert.deepEqual(await b.handle(mcp('hermes-tools')), { action: 'accept', content: {}, _meta: null });
    assert.equal(b.asked.length, 0);
    assert.deepEqual(await b.handle(mcp('fs')), { action: 'accept', content: {}, _meta: { persist: 'session' } });
    assert.equal((b.asked[0] as { command: string }).command, 'mcp.fs.read({"path":"/x"})');
    assert.deepEqual(await bridge(person('deny')).handle(mcp('fs')), { action: 'decline', content: null, _meta: null });
    assert.equal(b.handle({ method: 'account/chatgptAuthTokens/refresh', id: 6, params: {} } as ServerRequest), undefined);
  });

  it('turns codex questions into clarify requests', async () => {
    const b = bridge((req) => ({ answer: req.kind === 'clarify' ? 'blue' : null, source: 'person' }) as Answered<AgentRequest>);
    const r = await b.handle({ method: 'item/tool/requestUserInput', id: 7, params: { threadId: 't', turnId: 'u', itemId: 'i', isBlocking: true, autoResolutionMs: null, questions: [{ id: 'q1', header: 'Colour', question: 'Which colour?', isOther: false, isSecret: false, options: [{ label: 'blue', description: '' }, { label: 'red', description: '' }] }] } } as ServerRequest);
    assert.deepEqual(r, { answers: { q1: { answers: ['blue'] } } });
    assert.deepEqual(b.asked[0], { kind: 'clarify', question: 'Colour: Which colour?', choices: ['blue', 'red'] });
  });
});

describe('codex CLI checks', () => {
  it('parses versions and compares them', () => {
    assert.equal(parseCodexVersion('codex-cli 0.169.0\n'), '0.169.0');
    assert.equal(parseCodexVersion('v0.125.3-alpha.1'), '0.125.3');
    assert.equal(parseCodexVersion('nope'), null);
    assert.ok(compareVersions('0.125.0', '0.124.9') > 0);
    assert.equal(compareVersions('0.125.0', '0.125.0'), 0);
  });

  it('refuses a missing or too-old codex with the install hint', () => {
    const missing = codexStatus('/nonexistent/codex', {});
    assert.equal(missing.ok, false);
    assert.match(missing.problem!, /does not exist.*npm install -g @openai\/codex/);
    assert.match(codexStatus(undefined, { PATH: tmp }).problem!, /not on PATH.*npm install -g @openai\/codex/);
    const old = join(tmp, 'codex');
    writeFileSync(old, '#!/bin/sh\necho "codex-cli 0.100.2"\n');
    chmodSync(old, 0o755);
    const st = codexStatus(undefined, { PATH: tmp });
    assert.equal(st.ok, false);
    assert.match(st.problem!, /codex 0\.100\.2 is too old .*0\.125\.0 or newer.*npm install -g @openai\/codex/);
  });

  it('finds CODEX_HOME and warns when it is under /tmp', () => {
    assert.equal(codexHome('', { CODEX_HOME: '/srv/codex' }), '/srv/codex');
    assert.equal(codexHome('/opt/c', { CODEX_HOME: '/srv/codex' }), '/opt/c');
    assert.equal(codexHome('', { HOME: '/home/u' }), '/home/u/.codex');
    assert.match(codexHomeProblem('/tmp/x/codex', '/tmp')!, /bwrap: execvp codex-linux-sandbox/);
    assert.equal(codexHomeProblem('/home/u/.codex', '/tmp'), null);
    // Only codex's own temporary directory ($TMPDIR, else /tmp) is refused: /var/tmp is fine unless TMPDIR is there.
    assert.equal(codexHomeProblem('/var/tmp/codex', codexTmpdir({})), null);
    assert.match(codexHomeProblem('/var/tmp/codex', codexTmpdir({ TMPDIR: '/var/tmp' }))!, /under codex's temporary directory \/var\/tmp \(\$TMPDIR\)/);
    assert.equal(codexHomeProblem('/tmp/codex', codexTmpdir({ TMPDIR: '/var/tmp' })), null);
  });

  it('derives codex’s settings from Hermes’s: endpoint and key as a provider, permissions from the approval mode', () => {
    const config = defaultConfig();
    const base = { config, env: {}, home: tmp, cwd: '/work/w', codexHome: join(tmp, 'no-codex-home') };
    const proxy = deriveCodexConfig({ ...base, yolo: false, endpoint: { provider: 'openai', model: 'gpt-5.5', baseUrl: 'http://127.0.0.1:4000/v1/', apiKey: 'sk-proxy', source: 'env:OPENAI_API_KEY' } });
    assert.equal(proxy.config.model_provider, 'hermes');
    assert.deepEqual(proxy.config['model_providers.hermes'], { name: 'Hermes (http://127.0.0.1:4000/v1)', base_url: 'http://127.0.0.1:4000/v1', wire_api: 'responses', env_key: 'HERMES_CODEX_API_KEY' });
    assert.deepEqual(proxy.env, { HERMES_CODEX_API_KEY: 'sk-proxy' });
    assert.doesNotMatch(JSON.stringify(proxy.config) + proxy.processKey, /sk-proxy/, 'the key travels in the environment only');
    assert.equal(proxy.model, 'gpt-5.5');
    assert.deepEqual([proxy.approvalPolicy, proxy.sandbox, (proxy.sandboxPolicy as { networkAccess: boolean }).networkAccess], ['on-request', 'workspace-write', false]);
    assert.match(proxy.describe.permissions, /writes in the working directory \/work\/w without asking; going further asks/);
    assert.ok('mcp_servers.hermes-tools' in proxy.config);
    const yolo = deriveCodexConfig({ ...base, yolo: true, endpoint: { provider: 'openai', model: 'm', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-2' } });
    assert.equal((yolo.sandboxPolicy as { networkAccess: boolean }).networkAccess, true);
    assert.notEqual(yolo.processKey, proxy.processKey, 'another endpoint or key needs another codex process');
    // No Hermes key: codex's own login (and codex's own provider for the public API).
    assert.deepEqual(deriveCodexConfig({ ...base, yolo: false, endpoint: { provider: 'openai', model: 'm', baseUrl: 'https://api.openai.com/v1', apiKey: 'codex-app-server' } }).config.model_provider, undefined);
    const keyless = deriveCodexConfig({ ...base, yolo: false, endpoint: { provider: 'openai', model: 'm', baseUrl: 'http://proxy.local/v1', apiKey: 'codex-app-server' } });
    assert.equal((keyless.config['model_providers.hermes'] as { requires_openai_auth?: boolean }).requires_openai_auth, true);
    assert.equal(deriveCodexConfig({ ...base, yolo: false, endpoint: { provider: 'openai-codex', model: 'm', baseUrl: 'https://chatgpt.com/backend-api/codex', apiKey: 'tok' } }).config.model_provider, undefined);
    // The user's own permissions in config.toml are kept; codex.model wins over Hermes's model.
    const own = join(tmp, 'own-codex');
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'config.toml'), 'default_permissions = ":read-only"\n');
    const kept = deriveCodexConfig({ ...base, codexHome: own, yolo: false, endpoint: null, codexModel: 'gpt-x' });
    assert.deepEqual([kept.sandbox, kept.sandboxPolicy, kept.model], [null, null, 'gpt-x']);
    assert.match(kept.describe.permissions, /default_permissions from your config\.toml/);
  });

  it('/codex-runtime on is refused without a usable codex, and nothing changes', () => {
    const config = defaultConfig();
    config.codex.path = join(tmp, 'no-such-codex');
    const r = applyCodexRuntime({ home: tmp, config, env: { PATH: tmp }, provider: 'openai', args: 'on' });
    assert.equal(r.changed, false);
    assert.match(r.output, /^Cannot enable the codex app-server runtime: codex\.path \(.*no-such-codex\) does not exist\. Install the Codex CLI with `npm install -g @openai\/codex`/);
    assert.equal(config.model.openai_runtime, undefined);
    assert.equal(existsSync(join(tmp, 'config.yaml')), false);
  });

  it('parses /codex-runtime arguments', () => {
    assert.deepEqual(parseRuntimeArg(''), { value: null });
    assert.deepEqual(parseRuntimeArg('ON'), { value: 'codex_app_server' });
    assert.deepEqual(parseRuntimeArg('codex_app_server'), { value: 'codex_app_server' });
    assert.deepEqual(parseRuntimeArg('off'), { value: 'auto' });
    assert.match((parseRuntimeArg('maybe') as { error: string }).error, /Usage: \/codex-runtime/);
  });
});
