// `hermes doctor [--fix]`: one small function per check, each saying what is wrong and how to fix
// it; `--fix` applies the repairs that are safe (permissions, missing folders). Other layers add
// their checks to DOCTOR_CHECKS.

import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, formatProblem, loadConfig } from '../state/config.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { hermesHome, paths } from '../state/paths.ts';
import { storeChoice } from '../state/store/index.ts';
import { CliError } from './errors.ts';
import { colorEnabled, makeStyle } from './repl/style.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  /** What was found, one line. */
  detail: string;
  /** What to do about a warn/fail, one line. */
  fix?: string;
  /** A safe repair `--fix` may apply. Returns what it did. */
  repair?: () => string;
}

export interface DoctorContext {
  home: string;
  env: NodeJS.ProcessEnv;
  /** null when config.yaml cannot be read (the config check says why). */
  config: HermesConfig | null;
  /** Per-check network timeout. */
  timeoutMs: number;
}

export interface DoctorCheck {
  name: string;
  run(ctx: DoctorContext): CheckResult | Promise<CheckResult>;
}

const SKELETON = ['cron', 'sessions', 'logs', 'memories', 'pairing', 'hooks', 'image_cache', 'audio_cache', 'skills'];

const mode = (p: string) => statSync(p).mode & 0o777;

export const nodeCheck: DoctorCheck = {
  name: 'Node.js',
  run() {
    const [maj, min] = process.versions.node.split('.').map(Number);
    const ok = maj > 22 || (maj === 22 && min >= 12);
    return ok
      ? { status: 'ok', detail: `v${process.versions.node}` }
      : { status: 'fail', detail: `v${process.versions.node} is too old`, fix: 'install Node 22.12 or newer (or run `npm ci` in the Hermes folder to get Node 24)' };
  },
};

export const homeCheck: DoctorCheck = {
  name: 'HERMES_HOME',
  run({ home }) {
    if (!existsSync(home)) {
      return { status: 'fail', detail: `${home} does not exist`, fix: 'run `hermes doctor --fix` or `hermes setup`', repair: () => (mkdirSync(home, { recursive: true, mode: 0o700 }), `created ${home}`) };
    }
    if (!statSync(home).isDirectory()) return { status: 'fail', detail: `${home} is not a folder`, fix: 'move the file aside or point HERMES_HOME elsewhere' };
    try {
      accessSync(home, constants.W_OK | constants.R_OK);
    } catch {
      return { status: 'fail', detail: `${home} is not writable by you`, fix: `fix its owner/permissions (\`chown -R $USER ${home}\`)` };
    }
    const m = mode(home);
    if (m & 0o077) {
      return {
        status: 'warn',
        detail: `${home} is accessible by others (mode ${m.toString(8)})`,
        fix: `\`chmod 700 ${home}\` (or \`hermes doctor --fix\`)`,
        repair: () => (chmodSync(home, 0o700), `chmod 700 ${home}`),
      };
    }
    return { status: 'ok', detail: `${home} (private)` };
  },
};

export const skeletonCheck: DoctorCheck = {
  name: 'Folders',
  run({ home }) {
    if (!existsSync(home)) return { status: 'skip', detail: 'HERMES_HOME is missing' };
    const missing = SKELETON.filter((d) => !existsSync(join(home, d)));
    if (!missing.length) return { status: 'ok', detail: `${SKELETON.length} folders present` };
    return {
      status: 'warn',
      detail: `missing: ${missing.join(', ')}`,
      fix: '`hermes doctor --fix` creates them',
      repair: () => {
        for (const d of missing) mkdirSync(join(home, d), { recursive: true, mode: 0o700 });
        return `created ${missing.join(', ')}`;
      },
    };
  },
};

export const envFileCheck: DoctorCheck = {
  name: '.env',
  run({ home }) {
    const f = paths.env(home);
    if (!existsSync(f)) return { status: 'ok', detail: 'no .env yet (keys come from the environment)' };
    const m = mode(f);
    if (m & 0o077) {
      return { status: 'fail', detail: `${f} is readable by others (mode ${m.toString(8)})`, fix: `\`chmod 600 ${f}\` (or \`hermes doctor --fix\`)`, repair: () => (chmodSync(f, 0o600), `chmod 600 ${f}`) };
    }
    return { status: 'ok', detail: `${f} (0600)` };
  },
};

export const configCheck: DoctorCheck = {
  name: 'config.yaml',
  run({ home, env }) {
    const f = paths.config(home);
    if (!existsSync(f)) return { status: 'warn', detail: `${f} does not exist (defaults apply)`, fix: 'run `hermes setup`' };
    try {
      const loaded = loadConfig(home, env);
      if (loaded.problems.length) return { status: 'fail', detail: formatProblem(loaded.problems[0], f) + (loaded.problems.length > 1 ? ` (+${loaded.problems.length - 1} more)` : ''), fix: 'fix it with `hermes config edit` (see `hermes config check`)' };
      const m = mode(f);
      if (m & 0o077 && /^\s*api_key:\s*['"]?[^\s'"$#]/m.test(readFileSync(f, 'utf8')))
        return { status: 'warn', detail: `${f} holds an api_key and is readable by others`, fix: `\`chmod 600 ${f}\``, repair: () => (chmodSync(f, 0o600), `chmod 600 ${f}`) };
      return { status: 'ok', detail: `${f} is valid` };
    } catch (e) {
      if (e instanceof ConfigError) return { status: 'fail', detail: e.message.replace(/ Fix the file.*$/, ''), fix: 'fix it with `hermes config edit`, or move it aside to start from defaults' };
      throw e;
    }
  },
};

export const providerCheck: DoctorCheck = {
  name: 'Provider',
  async run({ config, env, timeoutMs }) {
    if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
    const { resolveRuntime, ResolveError, listModels, ModelListError } = await import('../llm/index.ts');
    const { resolveInputFrom } = await import('../session/session.ts');
    let rt;
    try {
      rt = resolveRuntime(resolveInputFrom(config, env));
    } catch (e) {
      if (e instanceof ResolveError) return { status: 'fail', detail: e.message.slice(0, e.message.length - e.hint.length - 2), fix: e.hint };
      throw e;
    }
    const where = `${rt.provider} at ${rt.baseUrl}`;
    const timer = AbortSignal.timeout(timeoutMs);
    const fetchWithTimeout: typeof fetch = (url, init) => fetch(url, { ...init, signal: AbortSignal.any([timer, ...(init?.signal ? [init.signal] : [])]) });
    try {
      const models = await listModels(rt, fetchWithTimeout);
      const has = models.some((m) => m.id === rt.model);
      return has || !models.length
        ? { status: 'ok', detail: `${where} answers (${models.length} models${has ? `, ${rt.model} among them` : ''})` }
        : { status: 'warn', detail: `${where} answers, but does not list ${rt.model}`, fix: 'check the model name with `hermes model --list`, or pick one with `hermes model`' };
    } catch (e) {
      if (!(e instanceof ModelListError)) throw e;
      const k = e.error.kind;
      const fix =
        k === 'auth' || k === 'forbidden'
          ? `the key was rejected: set a valid one with \`hermes setup\` (or \`hermes config set ${rt.keyEnv ?? 'OPENROUTER_API_KEY'} …\`)`
          : k === 'timeout' || k === 'connection' || k === 'server'
            ? `check the network and the base URL (${rt.baseUrl}); for a local server, is it running?`
            : 'see the message; `hermes setup` reconfigures the provider';
      // Some endpoints serve chat but no model list: not fatal.
      const status: CheckStatus = k === 'not_found' ? 'warn' : 'fail';
      return { status, detail: `${where}: ${e.message.replace(/^Could not list models: /, '')}`, fix };
    }
  },
};

/** Local and custom servers: does the model's tool call come back in the API's field or as text? */
export const toolCallsCheck: DoctorCheck = {
  name: 'Tool calls',
  async run({ config, env, timeoutMs }) {
    if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
    const { resolveRuntime } = await import('../llm/index.ts');
    const { resolveInputFrom } = await import('../session/session.ts');
    const { mayWriteTextCalls, probeToolCalls, textCallAdvice } = await import('../session/onboard.ts');
    let rt;
    try {
      rt = resolveRuntime(resolveInputFrom(config, env));
    } catch {
      return { status: 'skip', detail: 'no provider configured' };
    }
    if (!mayWriteTextCalls(rt)) return { status: 'skip', detail: `${rt.provider} returns tool calls in the API's field (not probed)` };
    const p = await probeToolCalls(rt, timeoutMs);
    const setting = config.model?.tool_call_parser;
    switch (p.kind) {
      case 'native':
        return { status: 'ok', detail: `${rt.model} returns tool calls in the API's field` };
      case 'text':
        return { status: 'warn', detail: `${rt.model} writes tool calls as text (${p.format} format)`, fix: textCallAdvice(p.format, setting) };
      case 'none':
        return {
          status: 'warn',
          detail: `${rt.model} answered without calling the tool it was offered`,
          fix: 'use a model trained for tool use (Hermes 3/4, Qwen 2.5/3, Llama 3.1+, Mistral Small), or check the server applies its chat template (llama.cpp: --jinja)',
        };
      default:
        return { status: 'skip', detail: `not probed: ${p.message.split(' — ')[0]}` };
    }
  },
};

export const ripgrepCheck: DoctorCheck = {
  name: 'ripgrep',
  async run() {
    let rg = 'rg';
    try {
      rg = (await import('@vscode/ripgrep')).rgPath;
    } catch {
      /* fall back to PATH */
    }
    const r = spawnSync(rg, ['--version'], { encoding: 'utf8', timeout: 5000 });
    if (r.status === 0) return { status: 'ok', detail: r.stdout.split('\n')[0] };
    return { status: 'warn', detail: 'ripgrep not found: search_files falls back to a slower scan', fix: 'reinstall Hermes (`npm ci`) or install ripgrep (`apt install ripgrep`)' };
  },
};

export const sqliteCheck: DoctorCheck = {
  name: 'SQLite FTS5',
  async run({ home }) {
    let sqlite: typeof import('node:sqlite');
    try {
      sqlite = await import('node:sqlite');
    } catch {
      return { status: 'fail', detail: 'node:sqlite is not available in this Node', fix: 'use Node 22.12+ (Node 24 recommended)' };
    }
    const mem = new sqlite.DatabaseSync(':memory:');
    try {
      mem.exec("CREATE VIRTUAL TABLE t USING fts5(x); INSERT INTO t VALUES ('hello world');");
      const hit = mem.prepare("SELECT count(*) AS n FROM t WHERE t MATCH 'hello'").get() as { n: number };
      if (Number(hit.n) !== 1) return { status: 'fail', detail: 'FTS5 search returned nothing', fix: 'use the Node from `npm ci` (SQLite with FTS5)' };
    } catch (e) {
      return { status: 'fail', detail: `FTS5 unavailable: ${(e as Error).message}`, fix: 'use the Node from `npm ci` (SQLite with FTS5)' };
    } finally {
      mem.close();
    }
    const f = paths.stateDb(home);
    if (!existsSync(f)) return { status: 'ok', detail: `SQLite ${sqliteVersion(sqlite)} with FTS5 (no state.db yet)` };
    let db: import('node:sqlite').DatabaseSync | undefined;
    try {
      db = new sqlite.DatabaseSync(f, { readOnly: true });
      const r = db.prepare('PRAGMA quick_check').get() as Record<string, unknown>;
      const v = String(Object.values(r)[0]);
      if (v !== 'ok') return { status: 'fail', detail: `${f}: ${v}`, fix: `\`hermes sessions repair\` (it backs the file up first); if that cannot fix it, \`hermes sessions recover --source ${f} --output <new.db>\` copies out what can be read` };
      const { ftsOptimizeAvailable } = await import('../state/db-fts.ts');
      const legacy = ftsOptimizeAvailable(db) ? ' (its search index has the layout from before v23: `hermes sessions optimize-storage` makes it compact, when convenient)' : '';
      return { status: 'ok', detail: `SQLite ${sqliteVersion(sqlite)} with FTS5; ${f} passes quick_check${legacy}` };
    } catch (e) {
      const { describeDbError } = await import('../state/db-errors.ts');
      const [detail, ...rest] = describeDbError(e, f, 'state').split('. ');
      return { status: 'fail', detail, fix: rest.join('. ').replace(/\.$/, '') || 'check its permissions' };
    } finally {
      db?.close();
    }
  },
};

function sqliteVersion(sqlite: typeof import('node:sqlite')): string {
  const db = new sqlite.DatabaseSync(':memory:');
  try {
    return String((db.prepare('select sqlite_version() as v').get() as { v: string }).v);
  } finally {
    db.close();
  }
}

export const terminalCheck: DoctorCheck = {
  name: 'Terminal backend',
  async run({ config, env, home, timeoutMs }) {
    if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
    const backend = String(env.TERMINAL_ENV || config.terminal?.backend || 'local');
    if (backend === 'local') return { status: 'ok', detail: 'local' };
    if (backend === 'docker') {
      const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: timeoutMs });
      if (r.error) return { status: 'fail', detail: 'docker backend, but the docker command is not installed', fix: 'install Docker, or set terminal.backend: local' };
      if (r.status !== 0) return { status: 'fail', detail: `docker backend, but the engine does not answer: ${(r.stderr || '').trim().split('\n')[0]}`, fix: 'start Docker (and check you may use it: `docker ps`)' };
      return { status: 'ok', detail: `docker (engine ${r.stdout.trim()}), image ${config.terminal?.docker_image}` };
    }
    if (backend === 'ssh') {
      const { sshConfigFrom } = await import('../tools/env/ssh.ts');
      const c = sshConfigFrom(env, config.terminal, home);
      if ('error' in c) return { status: 'fail', detail: c.error, fix: 'set terminal.ssh_host (and ssh_user, ssh_key) in config.yaml' };
      const target = c.user ? `${c.user}@${c.host}` : c.host;
      const args = ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${Math.max(1, Math.round(timeoutMs / 1000))}`, '-o', 'StrictHostKeyChecking=accept-new', '-o', `UserKnownHostsFile=${join(home, 'ssh', 'known_hosts')} ~/.ssh/known_hosts`, '-p', String(c.port ?? 22)];
      if (c.key) args.push('-i', c.key);
      mkdirSync(join(home, 'ssh'), { recursive: true, mode: 0o700 });
      const r = spawnSync('ssh', [...args, target, 'true'], { encoding: 'utf8', timeout: timeoutMs + 2000 });
      if (r.error) return { status: 'fail', detail: 'ssh backend, but the ssh client is not installed', fix: 'install OpenSSH (`apt install openssh-client`)' };
      if (r.status !== 0) return { status: 'fail', detail: `cannot log in to ${target}:${c.port ?? 22}: ${(r.stderr || 'timed out').trim().split('\n').pop()}`, fix: 'check host/user/port and that the key is authorised (`ssh -i <key> user@host true` should work without a password)' };
      return { status: 'ok', detail: `ssh to ${target}:${c.port ?? 22} works` };
    }
    return { status: 'warn', detail: `${backend} backend is not supported by this build`, fix: 'use terminal.backend: local, docker or ssh' };
  },
};

export const sandboxCheck: DoctorCheck = {
  name: 'Sandbox',
  async run({ config, env, home }) {
    if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
    const { sandboxReport } = await import('../sandbox/report.ts');
    const r = sandboxReport(config, env, home);
    if (r.state === 'none') return { status: 'warn', detail: r.line, fix: r.hint };
    if (r.state === 'off') return { status: 'warn', detail: r.line, fix: 'set terminal.sandbox.mode: workspace-write' };
    return { status: 'ok', detail: r.line };
  },
};

export const mcpCheck: DoctorCheck = {
  name: 'MCP servers',
  async run({ config, env, home, timeoutMs }) {
    if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
    const raw = config.mcp_servers;
    if (!raw || (typeof raw === 'object' && !Object.keys(raw).length)) return { status: 'ok', detail: 'none configured' };
    const { parseMcpServers } = await import('../mcp/config.ts');
    const { servers, problems } = parseMcpServers(raw, env);
    const bad = problems.map((p) => p.message);
    const good: string[] = [];
    const enabled = servers.filter((c) => c.enabled);
    // Connect to each enabled server (spawn or HTTP, initialize, list tools), all at once, bounded by the timeout.
    const { McpConnection } = await import('../mcp/connection.ts');
    await Promise.all(
      enabled.map(async (c) => {
        if (c.transport === 'stdio' && c.command && !onPath(c.command, env)) {
          bad.push(`${c.name}: command "${c.command}" not found`);
          return;
        }
        const conn = new McpConnection({ ...c, connectTimeoutMs: Math.min(c.connectTimeoutMs, timeoutMs) }, { env, cwd: c.cwd ?? process.cwd(), home, logDir: paths.logs(home), backoffMs: [], oauthInteractive: false });
        try {
          await conn.connect();
          if (conn.state === 'ready') good.push(`${c.name} (${conn.tools.length} tools)`);
          else bad.push(`${c.name}: ${conn.error ?? 'did not connect'}`);
        } finally {
          await conn.close();
        }
      }),
    );
    const off = servers.length - enabled.length;
    const tail = off ? `; ${off} disabled` : '';
    if (bad.length) return { status: 'fail', detail: `${bad.join('; ')}${good.length ? `; working: ${good.join(', ')}` : ''}${tail}`, fix: 'fix mcp_servers in config.yaml (`hermes config edit`); `hermes mcp test <name>` shows one server in detail' };
    return { status: 'ok', detail: `${good.join(', ') || 'none enabled'}${tail}` };
  },
};

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  if (cmd.includes('/')) return existsSync(cmd);
  for (const dir of (env.PATH ?? '').split(':')) {
    if (!dir) continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      /* next */
    }
  }
  return false;
}

export const toolsCheck: DoctorCheck = {
  name: 'Tools',
  async run({ config, env, home }) {
    if (!config) return { status: 'skip', detail: 'config.yaml unreadable' };
    const { toolReport } = await import('./inspect.ts');
    const r = toolReport(home, config, env);
    if (r.error) return { status: 'fail', detail: r.error, fix: 'fix `toolsets` in config.yaml' };
    if (!r.unavailable.length) return { status: 'ok', detail: `${r.enabled.length} tools from ${r.toolsets.join(', ')}` };
    return {
      status: 'warn',
      detail: `${r.enabled.length} tools; unavailable: ${r.unavailable.map((u) => `${u.name} (${u.reason})`).join(', ')}`,
      fix: 'set the keys they need in ~/.hermes/.env (`hermes config set NAME value`), or leave them off',
    };
  },
};

export const codexCheck: DoctorCheck = {
  name: 'Codex runtime',
  async run({ config, env, home }) {
    const { checkCodexRuntime } = await import('../runners/codex/doctor.ts');
    let endpoint: Parameters<typeof checkCodexRuntime>[0]['endpoint'] = null;
    if (config?.model.openai_runtime) {
      // The endpoint the session would resolve, as the codex runtime gets it.
      const { resolveRuntime } = await import('../llm/index.ts');
      const { resolveInputFrom } = await import('../session/session.ts');
      try {
        endpoint = resolveRuntime(resolveInputFrom(config, env));
      } catch (e) {
        endpoint = { error: (e as Error).message.split('\n')[0] };
      }
    }
    return checkCodexRuntime({ config, env, home, cwd: process.cwd(), endpoint });
  },
};

/** Every check, in order. Other layers push theirs. */
/** state.backend: postgres — the database answers, and which schema it holds (nothing is changed). */
export const postgresCheck: DoctorCheck = {
  name: 'PostgreSQL',
  async run({ config, env, timeoutMs }) {
    let choice;
    try {
      choice = storeChoice(config ?? undefined, env);
    } catch (e) {
      return { status: 'fail', detail: (e as Error).message };
    }
    if (choice.backend === 'sqlite') return { status: 'skip', detail: 'state.backend is sqlite (state.db)' };
    const { PgDb, redactUrl } = await import('../state/store/postgres/pool.ts');
    const where = redactUrl(choice.url!);
    let timer: NodeJS.Timeout | undefined;
    const connecting = PgDb.connect(choice.url!, { max: 1, application: 'hermes-doctor' });
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from ${where} in ${timeoutMs} ms`)), timeoutMs)));
    try {
      const db = await Promise.race([connecting, late]);
      try {
        const table = await db.get("SELECT to_regclass('schema_version') AS t");
        if (!table?.t) return { status: 'warn', detail: `${where} answers; no Hermes tables yet`, fix: 'they are created on first use (or copy state.db: `hermes state migrate --to postgres`)' };
        const v = await db.get('SELECT version FROM schema_version LIMIT 1');
        const n = await db.get('SELECT COUNT(*) AS n FROM sessions');
        return { status: 'ok', detail: `${where}: schema v${Number(v?.version ?? 0)}, ${Number(n?.n ?? 0)} sessions` };
      } finally {
        await db.close();
      }
    } catch (e) {
      void connecting.then((db) => db.close(), () => undefined);
      return { status: 'fail', detail: (e as Error).message.replace(/ Check state\.url.*$/, ''), fix: 'check state.url / HERMES_DATABASE_URL and that the server is running' };
    } finally {
      clearTimeout(timer);
    }
  },
};

export const DOCTOR_CHECKS: DoctorCheck[] = [nodeCheck, homeCheck, skeletonCheck, envFileCheck, configCheck, providerCheck, toolCallsCheck, ripgrepCheck, sqliteCheck, postgresCheck, terminalCheck, sandboxCheck, mcpCheck, toolsCheck, codexCheck];

export async function runDoctor(o: { fix?: boolean; timeout?: string }): Promise<void> {
  const home = hermesHome();
  const { loadEnvFile } = await import('../state/env.ts');
  if (existsSync(paths.env(home))) loadEnvFile(paths.env(home), process.env);
  let config: HermesConfig | null = null;
  try {
    config = loadConfig(home, process.env).config;
  } catch {
    config = null;
  }
  const t = Number(o.timeout ?? 10);
  if (!Number.isFinite(t) || t <= 0) throw new CliError(`--timeout expects seconds, got "${o.timeout}".`, 2);
  const ctx: DoctorContext = { home, env: process.env, config, timeoutMs: t * 1000 };
  const s = makeStyle(colorEnabled(process.env, !!process.stdout.isTTY));
  const icon: Record<CheckStatus, string> = { ok: s.green('✓'), warn: s.yellow('!'), fail: s.red('✗'), skip: s.dim('-') };
  let fails = 0;
  let warns = 0;
  let fixed = 0;
  for (const check of DOCTOR_CHECKS) {
    let r: CheckResult;
    try {
      r = await check.run(ctx);
    } catch (e) {
      r = { status: 'fail', detail: `the check itself failed: ${(e as Error).message}` };
    }
    if (o.fix && r.repair && r.status !== 'ok') {
      try {
        const did = r.repair();
        process.stdout.write(`${s.green('✓')} ${check.name.padEnd(17)} fixed: ${did}\n`);
        fixed++;
        continue;
      } catch (e) {
        r = { ...r, detail: `${r.detail} (repair failed: ${(e as Error).message})` };
      }
    }
    if (r.status === 'fail') fails++;
    if (r.status === 'warn') warns++;
    process.stdout.write(`${icon[r.status]} ${check.name.padEnd(17)} ${r.detail}\n`);
    if (r.fix && (r.status === 'fail' || r.status === 'warn')) process.stdout.write(`  ${' '.repeat(17)} ${s.dim('→')} ${r.fix}\n`);
  }
  const summary = `${fails} problem(s), ${warns} warning(s)${fixed ? `, ${fixed} fixed` : ''}.`;
  if (fails) throw new CliError(`${summary}${o.fix ? '' : ' Safe repairs: `hermes doctor --fix`.'}`);
  process.stdout.write(`${warns ? s.yellow(summary) : s.green('All good.')}\n`);
}
