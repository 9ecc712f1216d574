// A long-lived process server inside the OS sandbox (issue 29: ≤ 5 ms sandbox cost per command).
// Starting bwrap (namespaces, dozens of mounts) for every `bash -c` costs tens of milliseconds;
// instead one small Node process is started inside the sandbox per plan, and each foreground
// command is a child it spawns there (same mounts, same network namespace) with the cwd and
// environment Hermes chooses for that command. Output comes back framed on the server's stdout;
// the command's process group is a real pid here (bwrap shares the pid namespace), so timeouts and
// interrupts kill it from Hermes exactly like an unsandboxed one. The server dies with Hermes
// (bwrap --die-with-parent, and it exits when its stdin closes) and after some idle minutes.
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Sandbox, SandboxPlan } from '../../sandbox/index.ts';
import { killGroup, type ChildLike } from './child.ts';
import { releaseGroup, trackGroup } from './groups.ts';

// The server (CommonJS for `node -e`). Requests are JSON lines on stdin:
//   {t:'run', id, file, args, cwd, env, stdin}  {t:'in', id, data}  {t:'end', id}
// Replies are frames on stdout: [kind u8][id u32][length u32][payload]
//   0 ready, 1 started {pid}, 2 output bytes, 3 exit {code, signal}
const SERVER = String.raw`
const { spawn } = require('node:child_process');
const out = process.stdout;
const kids = new Map();
let blocked = false;
let closing = false;
function frame(kind, id, payload) {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload));
  const h = Buffer.allocUnsafe(9);
  h.writeUInt8(kind, 0); h.writeUInt32BE(id, 1); h.writeUInt32BE(body.length, 5);
  // Small frames in one write; a big output chunk after its header (not copied).
  const ok = body.length < 16384 ? out.write(Buffer.concat([h, body])) : (out.write(h), out.write(body));
  if (!ok && !blocked) {
    blocked = true;
    for (const k of kids.values()) { k.stdout && k.stdout.pause(); k.stderr && k.stderr.pause(); }
    out.once('drain', () => { blocked = false; for (const k of kids.values()) { k.stdout && k.stdout.resume(); k.stderr && k.stderr.resume(); } });
  }
}
function run(r) {
  let c;
  try {
    c = spawn(r.file, r.args, { cwd: r.cwd, env: r.env, detached: true, stdio: [r.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  } catch (e) {
    frame(2, r.id, Buffer.from(e.message + '\n')); frame(3, r.id, { code: 127, signal: null }); return;
  }
  kids.set(r.id, c);
  let done = false;
  const finish = (code, signal) => { if (done) return; done = true; kids.delete(r.id); frame(3, r.id, { code, signal }); if (closing && !kids.size) process.exit(0); };
  c.on('error', (e) => { frame(2, r.id, Buffer.from(e.message + '\n')); finish(127, null); });
  if (c.pid) frame(1, r.id, { pid: c.pid });
  c.stdout.on('data', (d) => frame(2, r.id, d));
  c.stderr.on('data', (d) => frame(2, r.id, d));
  if (blocked) { c.stdout.pause(); c.stderr.pause(); }
  if (c.stdin) c.stdin.on('error', () => {});
  c.on('close', finish);
  // Something the command left in the background keeps the pipes open: once the shell has
  // exited, wait briefly for them, then stop reading (as for an unsandboxed command).
  c.on('exit', (code, signal) => setTimeout(() => { if (done) return; c.stdout.destroy(); c.stderr.destroy(); finish(code, signal); }, 300).unref());
}
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
    let r; try { r = JSON.parse(line); } catch { continue; }
    if (r.t === 'run') run(r);
    else if (r.t === 'in') { const k = kids.get(r.id); if (k && k.stdin) k.stdin.write(r.data); }
    else if (r.t === 'end') { const k = kids.get(r.id); if (k && k.stdin) k.stdin.end(); }
  }
});
// Hermes closed the server: it ends once the commands it runs have.
process.stdin.on('end', () => { closing = true; if (!kids.size) process.exit(0); });
frame(0, 0, { pid: process.pid });
`;

/** How long a server may take to start. */
const READY_MS = 15_000;

/** Idle servers exit after this long (a new command starts one again). */
const IDLE_MS = 10 * 60_000;

/**
 * What a server is bound to: the plan's mounts and network, and the identity of every mounted path
 * (a folder removed and made again outside would leave the server's bind on the old one).
 */
export function planKey(plan: SandboxPlan): string {
  const parts: string[] = [plan.settings.network ? 'net' : 'nonet'];
  for (const [p, op] of [...plan.ops].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    let id = '-';
    try {
      const st = statSync(p);
      id = `${st.dev}:${st.ino}`;
    } catch {
      /* missing */
    }
    parts.push(`${op}:${p}:${id}`);
  }
  return parts.join('\n');
}

class ServerChild implements ChildLike {
  pid: number | undefined;
  exited = false;
  private readonly dataCbs: ((t: string) => void)[] = [];
  private readonly exitCbs: ((c: number | null, s: string | null) => void)[] = [];
  private readonly pending: string[] = [];
  private exitInfo: [number | null, string | null] | null = null;
  private killWanted: NodeJS.Signals | null = null;
  private readonly decoder = new StringDecoder('utf8');
  private readonly server: SandboxServer;
  private readonly id: number;

  constructor(server: SandboxServer, id: number) {
    this.server = server;
    this.id = id;
  }

  started(pid: number): void {
    this.pid = pid;
    trackGroup(pid);
    if (this.killWanted) killGroup(pid, this.killWanted);
  }

  data(b: Buffer): void {
    const t = this.decoder.write(b);
    if (!t) return;
    if (this.dataCbs.length) for (const cb of this.dataCbs) cb(t);
    else this.pending.push(t);
  }

  exit(code: number | null, signal: string | null): void {
    if (this.exited) return;
    const rest = this.decoder.end();
    if (rest) this.data(Buffer.from(rest));
    this.exited = true;
    if (this.pid) releaseGroup(this.pid);
    this.exitInfo = [code, signal];
    for (const cb of this.exitCbs) cb(code, signal);
  }

  onData(cb: (t: string) => void): void {
    this.dataCbs.push(cb);
    for (const t of this.pending.splice(0)) cb(t);
  }

  onExit(cb: (c: number | null, s: string | null) => void): void {
    if (this.exitInfo) cb(...this.exitInfo);
    else this.exitCbs.push(cb);
  }

  write(data: string): boolean {
    return !this.exited && this.server.send({ t: 'in', id: this.id, data });
  }

  end(): void {
    if (!this.exited) this.server.send({ t: 'end', id: this.id });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exited) return;
    if (this.pid) killGroup(this.pid, signal);
    else this.killWanted = signal;
  }
}

/** One server process inside the sandbox. `ready` resolves false when it could not start. */
export class SandboxServer {
  readonly key: string;
  /** The plan object last matched to this server (saves making its key again). */
  plan: SandboxPlan | null = null;
  readonly ready: Promise<boolean>;
  private proc: ChildProcess;
  private readonly kids = new Map<number, ServerChild>();
  private nextId = 1;
  private dead = false;
  private closed = false;
  private idle: NodeJS.Timeout | null = null;
  /** The frame being read: its header so far, then its kind, id, bytes left and (not output) body. */
  private head: Buffer = Buffer.alloc(0);
  private frame: { kind: number; id: number; left: number; body: Buffer[] } | null = null;

  constructor(sandbox: Sandbox, plan: SandboxPlan, key: string) {
    this.key = key;
    const w = sandbox.wrapPlan(plan, process.execPath, ['-e', SERVER], ['--die-with-parent']);
    // Only what Node needs: each command gets its own environment from the request.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    this.proc = spawn(w.file, w.args, { env, cwd: '/', stdio: ['pipe', 'pipe', 'ignore'] });
    let onReady!: (ok: boolean) => void;
    this.ready = new Promise((r) => (onReady = r));
    // A server that does not say it is ready in time is given up (commands take a bwrap each).
    const late = setTimeout(() => {
      onReady(false);
      this.proc.kill('SIGKILL');
    }, READY_MS);
    late.unref();
    void this.ready.then(() => {
      clearTimeout(late);
      if (!this.kids.size) this.hold(false);
    });
    this.proc.on('error', () => onReady(false));
    this.proc.stdin!.on('error', () => {});
    this.proc.stdout!.on('data', (d: Buffer) => this.read(d, onReady));
    // 'close': after the last frame on stdout was read.
    this.proc.on('close', () => {
      this.dead = true;
      onReady(false);
      for (const k of this.kids.values()) {
        k.data(Buffer.from('\n[the sandbox process server stopped]\n'));
        k.exit(null, 'SIGKILL');
      }
      this.kids.clear();
    });
    this.touch();
  }

  /** Keeps the event loop alive only while commands run (an idle server never holds Hermes open). */
  private hold(on: boolean): void {
    for (const h of [this.proc, this.proc.stdin, this.proc.stdout] as unknown as { ref?(): void; unref?(): void }[]) {
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }

  get alive(): boolean {
    return !this.dead && !this.closed;
  }

  /**
   * Parses frames as they stream in: output bytes go to their command as they arrive (a flood is
   * never gathered into whole frames or copied again); only headers and the small JSON bodies are.
   */
  private read(d: Buffer, onReady: (ok: boolean) => void): void {
    let at = 0;
    while (at < d.length) {
      if (!this.frame) {
        const need = 9 - this.head.length;
        const take = d.subarray(at, at + need);
        this.head = this.head.length ? Buffer.concat([this.head, take]) : take;
        at += take.length;
        if (this.head.length < 9) return;
        this.frame = { kind: this.head[0], id: this.head.readUInt32BE(1), left: this.head.readUInt32BE(5), body: [] };
        this.head = Buffer.alloc(0);
        if (this.frame.kind > 3 || (this.frame.kind !== 2 && this.frame.left > 65536)) return this.broken();
      }
      const f = this.frame;
      const piece = d.subarray(at, at + f.left);
      at += piece.length;
      f.left -= piece.length;
      if (f.kind === 2) {
        if (piece.length) this.kids.get(f.id)?.data(piece);
      } else if (piece.length) f.body.push(piece);
      if (f.left) return;
      this.frame = null;
      if (f.kind === 2) continue;
      if (f.kind === 0) {
        onReady(true);
        continue;
      }
      const k = this.kids.get(f.id);
      if (!k) continue;
      let body: { pid?: unknown; code?: unknown; signal?: unknown };
      try {
        body = JSON.parse(Buffer.concat(f.body).toString()) as typeof body;
      } catch {
        return this.broken();
      }
      if (f.kind === 1) {
        if (!Number.isInteger(body.pid) || (body.pid as number) <= 1) return this.broken();
        k.started(body.pid as number);
      }
      else if (f.kind === 3) {
        this.kids.delete(f.id);
        k.exit(typeof body.code === 'number' ? body.code : null, typeof body.signal === 'string' ? body.signal : null);
        if (!this.kids.size) this.hold(false);
        this.touch();
      }
    }
  }

  /**
   * A frame that makes no sense (the channel is a socket pair, which /proc cannot reopen, but a
   * process that can ptrace the server could still write on it): stop trusting the server. Its
   * commands are killed; the next command starts a new server.
   */
  private broken(): void {
    this.frame = null;
    this.proc.stdout!.removeAllListeners('data');
    this.proc.stdout!.resume();
    this.closed = true;
    this.proc.kill('SIGKILL');
    for (const k of this.kids.values()) k.kill('SIGKILL');
  }

  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.kids.size) this.touch();
      else this.close();
    }, IDLE_MS);
    this.idle.unref();
  }

  send(msg: Record<string, unknown>): boolean {
    if (this.dead || !this.proc.stdin!.writable) return false;
    this.proc.stdin!.write(JSON.stringify(msg) + '\n');
    return true;
  }

  /** Runs `file args` inside the sandbox; null when the server is gone. */
  run(file: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; stdin: boolean }): ChildLike | null {
    if (!this.alive) return null;
    const id = this.nextId++;
    const child = new ServerChild(this, id);
    this.kids.set(id, child);
    if (!this.send({ t: 'run', id, file, args, cwd: o.cwd, env: o.env, stdin: o.stdin })) {
      this.kids.delete(id);
      return null;
    }
    if (this.idle) clearTimeout(this.idle);
    this.hold(true);
    return child;
  }

  /** Ends the server once the commands it runs have ended; it takes no new ones. */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.closed) return;
    this.closed = true;
    this.proc.stdin!.end();
  }
}

/**
 * The server for a sandbox's current plan, started (or restarted when the plan changed) on demand.
 * A plan whose server failed to start is not tried again: its commands take the per-command path.
 */
export class SandboxServerPool {
  private current: SandboxServer | null = null;
  private readonly failed = new Set<string>();
  /** A running server for `plan`, or null (then run the command with a bwrap of its own). */
  async get(sandbox: Sandbox, plan: SandboxPlan): Promise<SandboxServer | null> {
    if (process.env.HERMES_SANDBOX_SERVER === '0') return null;
    const key = this.current?.plan === plan ? this.current.key : `${sandbox.availability.bin}\n${planKey(plan)}`;
    if (this.failed.has(key)) return null;
    if (this.current && (this.current.key !== key || !this.current.alive)) {
      this.current.close();
      this.current = null;
    }
    if (!this.current) this.current = new SandboxServer(sandbox, plan, key);
    this.current.plan = plan;
    const s = this.current;
    if (await s.ready) return s;
    this.failed.add(key);
    if (this.current === s) this.current = null;
    return null;
  }

  close(): void {
    this.current?.close();
    this.current = null;
  }
}
