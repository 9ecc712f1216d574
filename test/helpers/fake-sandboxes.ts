// Local fakes of cloud sandbox APIs (Daytona REST + toolbox, Vercel Sandbox v2, the managed-Modal
// tool gateway) that really run each command: `bash -c` on this machine with the sandbox's own
// directory as HOME, so the backends' shell wrapping, file operations and background processes are
// exercised end to end through the official SDKs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Call {
  method: string;
  path: string;
  body: any;
}

export interface FakeSandboxApi {
  url: string;
  calls: Call[];
  /** Sandbox id → its directory (HOME inside the "sandbox"). */
  dirs: Map<string, string>;
  state: Map<string, string>;
  close(): Promise<void>;
}

export function runLocal(script: string, home: string): Promise<{ output: string; exitCode: number }> {
  return new Promise((resolve) => {
    const c = spawn('bash', ['-c', script], { cwd: home, env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    c.on('close', (code) => resolve({ output: out, exitCode: code ?? 137 }));
  });
}

async function serve(handler: (req: Call, res: ServerResponse, api: FakeSandboxApi) => Promise<void> | void): Promise<FakeSandboxApi> {
  const api: FakeSandboxApi = { url: '', calls: [], dirs: new Map(), state: new Map(), close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const call = { method: req.method ?? 'GET', path: req.url ?? '/', body };
      api.calls.push(call);
      Promise.resolve(handler(call, res, api)).catch((e) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(e) }));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  api.close = () => new Promise((r) => server.close(() => r()));
  return api;
}

const json = (res: ServerResponse, v: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(v));
};

const newDir = (api: FakeSandboxApi, id: string) => {
  const d = mkdtempSync(join(tmpdir(), `fake-sb-${id}-`));
  mkdirSync(d, { recursive: true });
  api.dirs.set(id, d);
  return d;
};

/** Daytona: /api/sandbox… (control plane) and /toolbox/<id>/process/execute. */
export function startFakeDaytona(): Promise<FakeSandboxApi> {
  let n = 0;
  const names = new Map<string, string>();
  return serve(async (c, res, api) => {
    const dto = (id: string) => ({ id, name: [...names].find(([, v]) => v === id)?.[0] ?? id, state: api.state.get(id), toolboxProxyUrl: `${api.url}/toolbox`, labels: {}, cpu: 1, memory: 1, disk: 1, env: {}, public: false, target: 'us', organizationId: 'o', user: 'daytona' });
    const path = c.path.split('?')[0];
    let m: RegExpExecArray | null;
    if (c.method === 'POST' && path === '/api/sandbox') {
      const id = `sb${++n}`;
      names.set(c.body.name, id);
      newDir(api, id);
      api.state.set(id, 'started');
      return json(res, dto(id));
    }
    if ((m = /^\/api\/sandbox\/([^/]+)\/(start|stop)$/.exec(path))) {
      const id = names.get(m[1]) ?? m[1];
      api.state.set(id, m[2] === 'start' ? 'started' : 'stopped');
      return json(res, dto(id));
    }
    if ((m = /^\/api\/sandbox\/([^/]+)$/.exec(path))) {
      const id = names.get(decodeURIComponent(m[1])) ?? m[1];
      if (!api.state.has(id) || api.state.get(id) === 'destroyed') return json(res, { message: 'Sandbox not found', statusCode: 404 }, 404);
      if (c.method === 'DELETE') {
        api.state.set(id, 'destroyed');
        return json(res, {});
      }
      return json(res, dto(id));
    }
    if ((m = /^\/toolbox\/([^/]+)\/process\/execute$/.exec(path))) {
      const home = api.dirs.get(m[1])!;
      const cmd = String(c.body.command);
      const script = cmd.startsWith('bash -c ') ? (await runLocal(`printf %s ${cmd.slice(8)}`, home)).output : cmd;
      const r = await runLocal(script, home);
      return json(res, { exitCode: r.exitCode, result: r.output });
    }
    return json(res, { message: 'not found' }, 404);
  });
}

/** Vercel Sandbox v2: create, run command (ndjson stream), snapshot, stop. */
export function startFakeVercel(): Promise<FakeSandboxApi> {
  let n = 0;
  const now = () => Date.now();
  return serve(async (c, res, api) => {
    const path = c.path.split('?')[0];
    const session = (id: string, status = 'running') => ({ id, memory: 2048, vcpus: 1, region: 'iad1', runtime: 'node24', timeout: 300000, status, requestedAt: now(), createdAt: now(), updatedAt: now(), cwd: api.dirs.get(id) ?? '/vercel/sandbox' });
    let m: RegExpExecArray | null;
    if (c.method === 'POST' && path === '/v2/sandboxes') {
      const id = `sess${++n}`;
      const dir = newDir(api, id);
      const from = c.body?.source?.snapshotId as string | undefined;
      if (from) {
        const src = api.dirs.get(from);
        if (!src) return json(res, { error: { code: 'not_found', message: 'snapshot not found' } }, 404);
        await runLocal(`cp -a ${JSON.stringify(src)}/. ${JSON.stringify(dir)}/`, dir);
      }
      api.state.set(id, 'running');
      return json(res, { sandbox: { name: `sbx-${id}`, persistent: false, createdAt: now(), updatedAt: now(), currentSessionId: id, status: 'running' }, session: session(id), routes: [] });
    }
    if ((m = /^\/v2\/sandboxes\/sessions\/([^/]+)\/cmd$/.exec(path)) && c.method === 'POST') {
      const id = m[1];
      const cmd = { id: `cmd${++n}`, name: c.body.command, args: c.body.args, cwd: '/vercel/sandbox', sessionId: id, exitCode: null, startedAt: now() };
      const r = await runLocal(c.body.args[1], api.dirs.get(id)!);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ command: cmd })}\n`);
      if (r.output) res.write(`${JSON.stringify({ stream: 'stdout', data: r.output })}\n`);
      res.end(`${JSON.stringify({ command: { ...cmd, exitCode: r.exitCode, durationMs: 1 } })}\n`);
      return;
    }
    if ((m = /^\/v2\/sandboxes\/sessions\/([^/]+)\/snapshot$/.exec(path))) {
      const id = m[1];
      const snap = `snap-${id}`;
      api.dirs.set(snap, api.dirs.get(id)!);
      api.state.set(id, 'stopped');
      return json(res, { snapshot: { id: snap, sourceSessionId: id, region: 'iad1', status: 'created', sizeBytes: 1, createdAt: now(), updatedAt: now() }, session: session(id, 'stopped') });
    }
    if ((m = /^\/v2\/sandboxes\/sessions\/([^/]+)\/stop$/.exec(path))) {
      api.state.set(m[1], 'stopped');
      return json(res, { session: session(m[1], 'stopped') });
    }
    if ((m = /^\/v2\/sandboxes\/sessions\/([^/]+)$/.exec(path))) return json(res, { session: session(m[1], api.state.get(m[1])), routes: [] });
    return json(res, { error: { code: 'not_found', message: `no route ${c.method} ${path}` } }, 404);
  });
}

/** The managed-Modal tool gateway: sandboxes, execs (+ poll, cancel), terminate. */
export function startFakeModalGateway(token: string): Promise<FakeSandboxApi> {
  let n = 0;
  const execs = new Map<string, { status: string; output?: string; returncode?: number }>();
  return serve(async (c, res, api) => {
    if (c.path !== '/v1/sandboxes' && !c.path.startsWith('/v1/sandboxes/')) return json(res, { error: 'not found' }, 404);
    let m: RegExpExecArray | null;
    if (c.method === 'POST' && c.path === '/v1/sandboxes') {
      const id = `mo-${++n}`;
      newDir(api, id);
      api.state.set(id, 'running');
      return json(res, { id });
    }
    if ((m = /^\/v1\/sandboxes\/([^/]+)\/execs$/.exec(c.path))) {
      const e = { status: 'running' } as { status: string; output?: string; returncode?: number };
      execs.set(c.body.execId, e);
      void runLocal(c.body.command, api.dirs.get(m[1])!).then((r) => Object.assign(e, { status: 'completed', output: r.output, returncode: r.exitCode }));
      return json(res, { execId: c.body.execId, status: 'running' });
    }
    if ((m = /^\/v1\/sandboxes\/[^/]+\/execs\/([^/]+)$/.exec(c.path))) return json(res, execs.get(m[1]) ?? { status: 'failed' });
    if ((m = /^\/v1\/sandboxes\/([^/]+)\/terminate$/.exec(c.path))) {
      api.state.set(m[1], c.body?.snapshotBeforeTerminate ? 'snapshotted' : 'terminated');
      return json(res, { ok: true });
    }
    return json(res, { error: 'not found' }, 404);
  }).then((api) => {
    void token;
    return api;
  });
}
