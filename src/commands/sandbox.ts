// /sandbox: the session's OS sandbox (issue 29) — what confines the commands the agent runs here
// (mode, network, writable folders, protected paths, whether bubblewrap works) — and a change for
// this session: `/sandbox mode read-only`, `/sandbox network off`, `/sandbox reset`. Tightening
// applies at once; loosening (mode off, read-only → workspace-write, network back on) needs the
// person's confirmation: a question in the CLI, a `confirm` word elsewhere. A slash command is
// typed by a person, never called by the model. The next command runs under the new policy (the
// sandboxed process server and a persistent shell start again).
import { backendKind, sessionSandbox } from '../tools/env/index.ts';
import { sandboxOverrideSlot } from '../tools/env/settings.ts';
import { SANDBOX_MODES, sandboxSettings, type SandboxMode, type SandboxSettings } from '../sandbox/policy.ts';
import { INSTALL_HINT } from '../sandbox/probe.ts';
import type { CommandContext, CommandDef } from './registry.ts';

const USAGE = 'Usage: /sandbox [mode workspace-write|read-only|off] [network on|off] [reset]';
const RANK: Record<SandboxMode, number> = { off: 0, 'workspace-write': 1, 'read-only': 2 };

function show(ctx: CommandContext): string {
  const s = ctx.session.services;
  const kind = backendKind(s);
  const override = s.slots.peek(sandboxOverrideSlot);
  const sb = sessionSandbox(s);
  const set = sb.settings;
  const lines = [`Sandbox: mode ${set.mode}, network ${set.network ? 'on' : 'off'}${override ? ' (changed for this session; /sandbox reset goes back to config.yaml)' : ''}`];
  if (kind !== 'local') {
    lines.push(`Commands run on the ${kind} backend, which is isolated already: the OS sandbox is not used.`);
    return lines.join('\n');
  }
  if (set.mode === 'off') {
    lines.push('Off: commands run with your full permissions.');
    return lines.join('\n');
  }
  const a = sb.availability;
  if (!a.ok) {
    lines.push(`Not available here: ${a.reason}; commands run unsandboxed. To fix: ${a.hint ?? INSTALL_HINT}`);
    return lines.join('\n');
  }
  lines.push(`Mechanism: ${a.kind === 'bwrap' ? `bubblewrap (${a.bin})` : 'macOS sandbox-exec'}`);
  const plan = sb.plan();
  if (plan) {
    lines.push(`Writable: ${plan.writable.length ? plan.writable.join(', ') : 'nothing (read-only)'}`);
    if (plan.refused.length) lines.push(`Refused as writable (protected): ${plan.refused.join(', ')}`);
    const shown = plan.protectedPaths.filter((p) => plan.writable.some((w) => p.path === w || p.path.startsWith(w + '/')));
    lines.push(`Protected: ${plan.protectedPaths.length} paths stay read-only (Hermes's config, keys and code, ~/.ssh, shell start-up files…)${shown.length ? `; inside the writable folders: ${shown.slice(0, 8).map((p) => p.path).join(', ')}${shown.length > 8 ? ', …' : ''}` : ''}`);
    lines.push(`Hidden: ${plan.secrets.length} Hermes credential files and folders cannot be read`);
  }
  return lines.join('\n');
}

/** Whether `next` grants commands more than `cur` does. */
function loosens(cur: SandboxSettings, next: SandboxSettings): boolean {
  return RANK[next.mode] < RANK[cur.mode] || (next.network && !cur.network);
}

async function confirmed(ctx: CommandContext, what: string, words: string[]): Promise<boolean | string> {
  if (words.includes('confirm')) return true;
  if (ctx.surface !== 'cli') return `${what} Send the command again with the word confirm (e.g. /sandbox ${words.join(' ')} confirm) to go ahead.`;
  const { answer, source } = await ctx.session.broker.ask({ kind: 'clarify', question: `${what} Go ahead?`, choices: ['Loosen it for this session', 'Cancel'] });
  const a = String(answer ?? '').trim().toLowerCase();
  return source === 'person' && (a === '1' || a.startsWith('loosen'));
}

export function sandboxCommand(): CommandDef {
  return {
    name: 'sandbox',
    args: '[mode <workspace-write|read-only|off>] [network <on|off>] [reset]',
    description: 'the OS sandbox commands run in; change it for this session',
    category: 'config',
    surfaces: ['cli', 'gateway', 'acp'],
    completions: ['mode workspace-write', 'mode read-only', 'mode off', 'network on', 'network off', 'reset'],
    async run(ctx, args) {
      const s = ctx.session.services;
      const words = args.split(/\s+/).filter(Boolean).map((w) => w.toLowerCase());
      if (!words.length || (words.length === 1 && ['show', 'status'].includes(words[0]))) return { output: show(ctx) };
      const cur = sessionSandbox(s).settings;
      const override = { ...(s.slots.peek(sandboxOverrideSlot) ?? {}) };
      let reset = false;
      for (let i = 0; i < words.length; i++) {
        const w = words[i];
        if (w === 'confirm') continue;
        if (w === 'reset') {
          reset = true;
          continue;
        }
        const v = words[i + 1];
        if (w === 'mode' && SANDBOX_MODES.includes(v as SandboxMode)) override.mode = v as SandboxMode;
        else if (w === 'network' && (v === 'on' || v === 'off')) override.network = v === 'on';
        else return { output: `${w === 'mode' ? `Unknown mode "${v ?? ''}": use ${SANDBOX_MODES.join(', ')}.` : w === 'network' ? `Unknown network setting "${v ?? ''}": use on or off.` : `Unknown /sandbox argument "${w}".`}\n${USAGE}` };
        i++;
      }
      const wanted = reset ? undefined : override;
      const next = sandboxSettings(s.config, s.env, wanted);
      if (loosens(cur, next)) {
        const what =
          next.mode === 'off'
            ? 'Turning the OS sandbox off lets every command the agent runs change anything you can (Hermes config and keys, ~/.ssh, shell start-up files).'
            : next.network && !cur.network
              ? 'Turning the network on lets commands the agent runs reach the network (and send out what they can read).'
              : 'This lets commands the agent runs write in the working directory, /tmp and the caches.';
        const ok = await confirmed(ctx, what, words);
        if (ok !== true) return { output: typeof ok === 'string' ? ok : 'Cancelled: the sandbox is unchanged.' };
      }
      if (wanted === undefined) s.slots.delete(sandboxOverrideSlot);
      else s.slots.set(sandboxOverrideSlot, wanted);
      return { output: `${reset ? 'Back to config.yaml. ' : ''}${show(ctx)}` };
    },
  };
}
