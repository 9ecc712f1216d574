// How this copy of Hermes was installed, and whether a newer one exists. A git checkout updates with
// `git pull --ff-only` + `npm ci`; an npm install with `npm install -g <package>@latest`. Checking
// reads only: `git ls-remote` against the branch's upstream, or `npm view <package> version` (which
// honours the user's npm registry settings).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type InstallMethod = 'git' | 'npm';

export interface InstallInfo {
  root: string;
  method: InstallMethod;
  name: string;
  version: string;
}

export function installInfo(root: string): InstallInfo {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  return { root, method: existsSync(join(root, '.git')) ? 'git' : 'npm', name: pkg.name, version: pkg.version };
}

export interface UpdateCheck {
  method: InstallMethod;
  current: string;
  latest: string | null;
  available: boolean | null;
  /** What `hermes update` would do. */
  plan: string[];
  note?: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 20_000): { ok: boolean; out: string; err: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  if (r.error) return { ok: false, out: '', err: r.error.message };
  return { ok: r.status === 0, out: (r.stdout ?? '').trim(), err: (r.stderr ?? '').trim() };
}

/** Compares dotted versions: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, '').split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.replace(/^v/, '').split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

export function checkForUpdate(info: InstallInfo): UpdateCheck {
  if (info.method === 'git') {
    const plan = ['git pull --ff-only', 'npm ci (dependencies and the bundle)', 'restart a running gateway'];
    const head = run('git', ['rev-parse', 'HEAD'], info.root).out;
    const up = run('git', ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}'], info.root);
    if (!up.ok) return { method: 'git', current: `${info.version} (${head.slice(0, 8)})`, latest: null, available: null, plan, note: 'This checkout has no upstream branch, so there is nothing to compare with (set one with `git branch -u origin/<branch>`).' };
    const [remote, ...rest] = up.out.split('/');
    const branch = rest.join('/');
    const ls = run('git', ['ls-remote', remote, `refs/heads/${branch}`], info.root);
    const remoteSha = ls.out.split(/\s+/)[0] ?? '';
    if (!ls.ok || !remoteSha) return { method: 'git', current: `${info.version} (${head.slice(0, 8)})`, latest: null, available: null, plan, note: `Could not reach ${remote}: ${ls.err.split('\n').pop() || 'no answer'}.` };
    if (remoteSha === head) return { method: 'git', current: `${info.version} (${head.slice(0, 8)})`, latest: remoteSha.slice(0, 8), available: false, plan };
    const known = run('git', ['cat-file', '-e', `${remoteSha}^{commit}`], info.root).ok;
    const behind = known && run('git', ['merge-base', '--is-ancestor', remoteSha, 'HEAD'], info.root).ok;
    return { method: 'git', current: `${info.version} (${head.slice(0, 8)})`, latest: remoteSha.slice(0, 8), available: !behind, plan, note: behind ? 'Your checkout already contains the upstream commit (you have local commits on top).' : undefined };
  }
  const plan = [`npm install -g ${info.name}@latest`, 'restart a running gateway'];
  const v = run('npm', ['view', info.name, 'version'], info.root, 30_000);
  if (!v.ok || !v.out) return { method: 'npm', current: info.version, latest: null, available: null, plan, note: `npm could not tell the latest version: ${v.err.split('\n').pop() || 'no answer'}.` };
  const latest = v.out.split('\n').pop()!.trim();
  return { method: 'npm', current: info.version, latest, available: compareVersions(info.version, latest) < 0, plan };
}
