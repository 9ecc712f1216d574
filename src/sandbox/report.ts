// The sandbox's state in one line, said the same way by `hermes doctor`, `hermes status` and the
// REPL banner: on (which mode, which mechanism), off by setting, or none here (with the fix).
import { sandboxSettings } from './policy.ts';
import { INSTALL_HINT, sandboxAvailability } from './probe.ts';

export interface SandboxReport {
  state: 'on' | 'off' | 'none' | 'remote';
  mode: string;
  network: boolean;
  line: string;
  hint?: string;
}

export function sandboxReport(config: { terminal?: unknown }, env: NodeJS.ProcessEnv, hermesHome: string): SandboxReport {
  const set = sandboxSettings(config, env);
  const backend = String(env.TERMINAL_ENV?.trim() || ((config.terminal ?? {}) as { backend?: string }).backend || 'local').toLowerCase();
  const base = { mode: set.mode, network: set.network };
  if (backend !== 'local') return { ...base, state: 'remote', line: `not needed: commands run on the ${backend} backend` };
  if (set.mode === 'off') return { ...base, state: 'off', line: 'off (terminal.sandbox.mode: off): commands run with your full permissions' };
  const a = sandboxAvailability(env, hermesHome);
  if (!a.ok) return { ...base, state: 'none', line: `none: ${a.reason}, so commands run unsandboxed`, hint: a.hint ?? INSTALL_HINT };
  const extras = [set.network ? '' : 'network off', set.extraWritable.length ? `${set.extraWritable.length} extra writable` : ''].filter(Boolean);
  return { ...base, state: 'on', line: `${set.mode} (${a.kind === 'bwrap' ? 'bubblewrap' : 'macOS sandbox-exec'})${extras.length ? `, ${extras.join(', ')}` : ''}` };
}
