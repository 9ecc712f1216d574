// execute_code's implementation: stub generation, the Unix-socket RPC server, and running the
// script. Loaded on the first call.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolOutcome } from '../../agent/types.ts';
import { codeExecEnv } from '../../policy/secrets-env.ts';
import { sessionSandbox, terminalCwd } from '../env/index.ts';
import { releaseGroup, trackGroup } from '../env/groups.ts';
import { dotenvNamesSlot } from '../env/settings.ts';
import { SANDBOX_TOOLS, type ExecuteCodeArgs } from '../defs/execute-code.ts';
import { capOutput } from '../output.ts';
import { fail, ok } from '../result.ts';
import type { ToolContext } from '../types.ts';

const MAX_STDOUT = 50_000;
const MAX_STDERR = 10_000;

function pythonStub(): string {
  const fns = SANDBOX_TOOLS.map((t) => {
    const sig = t.params.map((p, i) => (i < t.required ? p : `${p}=None`)).join(', ');
    const args = t.params.map((p) => `${JSON.stringify(p)}: ${p}`).join(', ');
    return `def ${t.name}(${sig}):\n    """${t.doc}"""\n    return _call(${JSON.stringify(t.name)}, {${args}})\n`;
  }).join('\n\n');
  return `"""Hermes tools for execute_code scripts (generated). Each call runs the real tool in Hermes."""
import itertools as _it
import json as _json
import os as _os
import socket as _socket

__all__ = [${SANDBOX_TOOLS.map((t) => JSON.stringify(t.name)).join(', ')}, "HermesToolError"]


class HermesToolError(Exception):
    """A tool call could not be made (unknown tool, call limit reached, Hermes went away)."""


_ids = _it.count(1)
_conn = None
_reader = None


def _call(tool, args):
    global _conn, _reader
    if _conn is None:
        _conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        _conn.connect(_os.environ["HERMES_RPC_SOCKET"])
        _reader = _conn.makefile("r", encoding="utf-8")
    req = {"id": next(_ids), "tool": tool, "args": {k: v for k, v in args.items() if v is not None}}
    _conn.sendall((_json.dumps(req) + "\\n").encode("utf-8"))
    line = _reader.readline()
    if not line:
        raise HermesToolError("the connection to Hermes closed")
    resp = _json.loads(line)
    if "error" in resp:
        raise HermesToolError(resp["error"])
    try:
        return _json.loads(resp["result"])
    except (ValueError, TypeError):
        return resp["result"]


${fns}`;
}

function jsStub(): string {
  const fns = SANDBOX_TOOLS.map(
    (t) => `/** ${t.doc} */\nexports.${t.name} = (...a) => call(${JSON.stringify(t.name)}, argsOf(${JSON.stringify(t.params)}, ${t.required}, a));`,
  ).join('\n');
  return `// Hermes tools for execute_code scripts (generated). Each call runs the real tool in Hermes.
'use strict';
const net = require('node:net');
let conn = null;
let buf = '';
let nextId = 1;
const pending = new Map();
class HermesToolError extends Error {}
exports.HermesToolError = HermesToolError;
function connect() {
  conn = net.createConnection(process.env.HERMES_RPC_SOCKET);
  conn.setEncoding('utf8');
  conn.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (!pending.size) conn.unref();
      if (!p) continue;
      if ('error' in m) p.reject(new HermesToolError(m.error));
      else {
        let v = m.result;
        try { v = JSON.parse(m.result); } catch {}
        p.resolve(v);
      }
    }
  });
  conn.on('error', (e) => { for (const p of pending.values()) p.reject(new HermesToolError(String(e.message))); pending.clear(); });
}
function call(tool, args) {
  if (!conn) connect();
  conn.ref();
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    conn.write(JSON.stringify({ id, tool, args }) + '\\n');
  });
}
/** Accepts f({name: value, …}) or f(positional…, {optional: …}). */
const isObj = (v) => !!v && typeof v === 'object' && !Array.isArray(v);
function argsOf(names, required, a) {
  if (a.length === 1 && isObj(a[0]) && Object.keys(a[0]).some((k) => names.includes(k))) return a[0];
  const out = {};
  let i = 0;
  for (; i < a.length && i < names.length; i++) {
    if (i >= required && i === a.length - 1 && isObj(a[i])) break;
    if (a[i] !== undefined) out[names[i]] = a[i];
  }
  if (i < a.length && isObj(a[i])) Object.assign(out, a[i]);
  return out;
}
${fns}
`;
}

interface RpcServer {
  path: string;
  calls(): number;
  close(): Promise<void>;
}

async function startRpc(dir: string, ctx: ToolContext, maxCalls: number, allowed: Set<string>): Promise<RpcServer> {
  const path = join(dir, 'rpc.sock');
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.setEncoding('utf8');
    let buf = '';
    // One request at a time per connection, in order.
    let chain = Promise.resolve();
    sock.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        chain = chain.then(async () => {
          let id: unknown = null;
          let reply: Record<string, unknown>;
          try {
            const req = JSON.parse(line) as { id: unknown; tool: string; args?: Record<string, unknown> };
            id = req.id;
            if (!allowed.has(req.tool)) reply = { id, error: `"${req.tool}" is not available to scripts (available: ${[...allowed].join(', ')}).` };
            else if (count >= maxCalls) reply = { id, error: `This script reached the limit of ${maxCalls} tool calls (code_execution.max_tool_calls).` };
            else {
              count++;
              const args = { ...(req.args ?? {}) };
              if (req.tool === 'terminal') {
                delete args.background;
                delete args.pty;
              }
              ctx.progress(`script → ${req.tool}`);
              const out = await ctx.callTool!(req.tool, args, { ...ctx, callId: `${ctx.callId}_rpc${count}` });
              reply = { id, result: out.content, is_error: !!out.isError };
            }
          } catch (e) {
            reply = { id, error: `bad request: ${(e as Error).message}` };
          }
          if (!sock.destroyed) sock.write(JSON.stringify(reply) + '\n');
        });
      }
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    calls: () => count,
    close: () =>
      new Promise((resolve) => {
        for (const so of sockets) so.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function runExecuteCode(a: ExecuteCodeArgs, ctx: ToolContext): Promise<string | ToolOutcome> {
  const s = ctx;
  if (!s.callTool) return fail('execute_code is not available in this session.');
  const cfg = (s.config.code_execution ?? {}) as { timeout?: number; max_tool_calls?: number };
  const timeoutMs = (Number(cfg.timeout) || 300) * 1000;
  const maxCalls = Number(cfg.max_tool_calls) || 50;
  const lang = a.language ?? 'python';
  const dir = mkdtempSync(join(tmpdir(), 'hermes-exec-'));
  const started = Date.now();
  let rpc: RpcServer | null = null;
  try {
    let file: string;
    let args: string[];
    const env = codeExecEnv(s.env, { passthrough: s.config.terminal?.env_passthrough ?? [], dotenvNames: s.slots.peek(dotenvNamesSlot) });
    if (lang === 'python') {
      writeFileSync(join(dir, 'hermes_tools.py'), pythonStub());
      writeFileSync(join(dir, 'script.py'), a.code);
      file = s.env.HERMES_PYTHON || 'python3';
      args = [join(dir, 'script.py')];
      env.PYTHONPATH = env.PYTHONPATH ? `${dir}:${env.PYTHONPATH}` : dir;
      env.PYTHONUNBUFFERED = '1';
      env.PYTHONDONTWRITEBYTECODE = '1';
    } else {
      mkdirSync(join(dir, 'node_modules', 'hermes_tools'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'hermes_tools', 'package.json'), '{"name":"hermes_tools","main":"index.js"}\n');
      writeFileSync(join(dir, 'node_modules', 'hermes_tools', 'index.js'), jsStub());
      writeFileSync(join(dir, 'script.mjs'), a.code);
      file = process.execPath;
      args = [join(dir, 'script.mjs')];
    }
    rpc = await startRpc(dir, ctx, maxCalls, new Set(SANDBOX_TOOLS.map((t) => t.name)));
    env.HERMES_RPC_SOCKET = rpc.path;
    const r = await new Promise<{ stdout: string; stderr: string; code: number | null; timedOut: boolean; interrupted: boolean; spawnError?: string }>((resolve) => {
      // The script runs in the session's OS sandbox, like terminal commands.
      const w = sessionSandbox(s).wrap(file, args);
      const child = spawn(w.file, w.args, { cwd: terminalCwd(s), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      trackGroup(child.pid);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = stdout.length > 8 * MAX_STDOUT ? stdout.slice(0, 4 * MAX_STDOUT) + stdout.slice(-4 * MAX_STDOUT) + d : stdout + d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4 * MAX_STDERR)));
      let timedOut = false;
      let interrupted = false;
      let killer: NodeJS.Timeout | undefined;
      const stop = () => {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          /* gone */
        }
        killer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            /* gone */
          }
        }, 5000);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, timeoutMs);
      const onAbort = () => {
        interrupted = true;
        stop();
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (e) => {
        clearTimeout(timer);
        resolve({ stdout, stderr, code: null, timedOut, interrupted, spawnError: e.message });
      });
      child.on('close', (code) => {
        releaseGroup(child.pid);
        clearTimeout(timer);
        if (killer) clearTimeout(killer);
        ctx.signal.removeEventListener('abort', onAbort);
        resolve({ stdout, stderr, code, timedOut, interrupted });
      });
    });
    const duration = Math.round((Date.now() - started) / 10) / 100;
    if (r.spawnError)
      return fail(lang === 'python' ? `Could not run Python (${file}): ${r.spawnError}. Install python3, or use language "javascript".` : `Could not run the script: ${r.spawnError}`);
    let output = r.stdout;
    const result: Record<string, unknown> = {
      status: r.timedOut ? 'timeout' : r.interrupted ? 'interrupted' : r.code === 0 ? 'success' : 'error',
      output: '',
      tool_calls_made: rpc.calls(),
      duration_seconds: duration,
    };
    if (output.length > MAX_STDOUT) {
      const saved = join(s.home, 'cache', 'exec', `${ctx.callId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
      try {
        mkdirSync(join(s.home, 'cache', 'exec'), { recursive: true, mode: 0o700 });
        writeFileSync(saved, output, { mode: 0o600 });
        result.full_output_path = saved;
      } catch {
        /* keep the capped output only */
      }
      output = capOutput(output, MAX_STDOUT);
    }
    result.output = output;
    if (r.timedOut) result.error = `The script was stopped after ${timeoutMs / 1000}s (code_execution.timeout).`;
    else if (r.interrupted) result.error = 'The script was interrupted by the user.';
    else if (r.code !== 0) {
      result.exit_code = r.code;
      result.error = r.stderr.slice(-MAX_STDERR).trim() || `The script exited with code ${r.code}.`;
    }
    return { content: ok(result), isError: result.status !== 'success' };
  } finally {
    await rpc?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
