// `quick_commands:` from config.yaml as slash commands, on every surface:
//
//   quick_commands:
//     gpu:   { type: exec, command: "nvidia-smi --query-gpu=utilization.gpu --format=csv" }
//     deploy-status: { type: alias, target: /status }
//
// `exec` runs the shell command without the model (output shown, 30 s limit); `alias` runs another
// slash command with the arguments appended.

import { spawn } from 'node:child_process';
import type { HermesConfig } from '../state/defaults.ts';
import { ALL_SURFACES, type CommandDef, type CommandRegistry } from './registry.ts';

export const QUICK_EXEC_TIMEOUT_MS = 30_000;
const MAX_OUTPUT = 8_000;

interface QuickSpec {
  type?: unknown;
  command?: unknown;
  target?: unknown;
  description?: unknown;
  timeout?: unknown;
}

/** Runs a quick command's shell line in `cwd`; resolves with its combined output and exit code. */
export function runQuickExec(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = QUICK_EXEC_TIMEOUT_MS): Promise<{ output: string; code: number | null; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    let out = '';
    const add = (d: Buffer) => {
      if (out.length < MAX_OUTPUT * 2) out += d.toString('utf8');
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ output: e.message, code: null, timedOut: false });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const trimmed = out.length > MAX_OUTPUT ? `${out.slice(0, MAX_OUTPUT)}\n… (output cut at ${MAX_OUTPUT.toLocaleString('en-US')} characters)` : out;
      resolve({ output: trimmed.replace(/\n+$/, ''), code, timedOut });
    });
  });
}

function quickDef(name: string, spec: QuickSpec, registry: () => CommandRegistry): CommandDef | string {
  const type = typeof spec.type === 'string' ? spec.type.toLowerCase() : '';
  const description = typeof spec.description === 'string' && spec.description ? spec.description : '';
  if (type === 'exec') {
    const command = typeof spec.command === 'string' ? spec.command.trim() : '';
    if (!command) return `quick command /${name} has type exec but no \`command\``;
    const timeoutS = Number(spec.timeout);
    const timeoutMs = Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS * 1000 : QUICK_EXEC_TIMEOUT_MS;
    return {
      name,
      description: description || `run: ${command.length > 60 ? `${command.slice(0, 59)}…` : command}`,
      category: 'tools',
      surfaces: ALL_SURFACES,
      midTurn: true,
      async run(ctx) {
        const s = ctx.session;
        const r = await runQuickExec(command, s.info.cwd, s.info.env, timeoutMs);
        if (r.timedOut) return { output: `${r.output ? `${r.output}\n` : ''}/${name} timed out after ${Math.round(timeoutMs / 1000)}s.` };
        const tail = r.code && r.code !== 0 ? `\n(exit ${r.code})` : '';
        return { output: (r.output || '(no output)') + tail };
      },
    };
  }
  if (type === 'alias') {
    const raw = typeof spec.target === 'string' ? spec.target.trim() : '';
    if (!raw) return `quick command /${name} has type alias but no \`target\``;
    const target = raw.startsWith('/') ? raw : `/${raw}`;
    return {
      name,
      args: '[args]',
      description: description || `alias for ${target}`,
      category: 'tools',
      surfaces: ALL_SURFACES,
      midTurn: true,
      async run(ctx, args) {
        const line = `${target}${args ? ` ${args}` : ''}`;
        const r = registry().resolve(line, ctx.surface);
        if ('error' in r) return { output: `/${name} points at ${target}, which is not a command here.` };
        if (r.def.name === name) return { output: `/${name} is an alias of itself.` };
        if (ctx.session.busy && !r.def.midTurn) return { output: `/${r.def.name} cannot run while the agent is working. Wait, or /stop first.` };
        return r.def.run(ctx, r.args);
      },
    };
  }
  return `quick command /${name} needs \`type: exec\` (with command) or \`type: alias\` (with target)`;
}

/**
 * Adds `quick_commands` from config to the registry. A name a built-in command already has is
 * skipped. Returns how many were added and a warning per skipped entry.
 */
export function registerQuickCommands(registry: CommandRegistry, config: HermesConfig): { added: number; warnings: string[] } {
  const warnings: string[] = [];
  let added = 0;
  const qc = (config as { quick_commands?: unknown }).quick_commands;
  if (!qc || typeof qc !== 'object' || Array.isArray(qc)) return { added, warnings };
  const taken = new Set(registry.list().flatMap((d) => [d.name, ...(d.aliases ?? [])]));
  for (const [rawName, spec] of Object.entries(qc as Record<string, unknown>)) {
    const name = rawName.trim().replace(/^\//, '').toLowerCase();
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
      warnings.push(`quick command "${rawName}" skipped: names use letters, digits, - and _`);
      continue;
    }
    if (taken.has(name)) {
      warnings.push(`quick command /${name} skipped: a built-in command has that name (rename it in quick_commands)`);
      continue;
    }
    const def = spec && typeof spec === 'object' ? quickDef(name, spec as QuickSpec, () => registry) : `quick command /${name} must be a mapping`;
    if (typeof def === 'string') {
      warnings.push(def);
      continue;
    }
    registry.add(def);
    taken.add(name);
    added++;
  }
  return { added, warnings };
}
