// Asking before dangerous commands: policy verdict → deny rules → allowlists → (smart mode: the
// reviewer model) → the person.
import { homedir } from 'node:os';
import { globToRegExp, classifyCommand, type Finding } from '../policy/dangerous.ts';
import { setConfigKey } from '../state/config.ts';
import { defineSlot } from '../state/slots.ts';
import { approvalMode, recordSmartDenial, resetSmartDenials, smartVerdict } from './approval-smart.ts';
import type { ToolContext, ToolSession } from './types.ts';

export type ApprovalOutcome = { allowed: true; via?: string } | { allowed: false; reason: string; hardline: boolean };

/** Patterns a person approved for the rest of the session. */
const approvedPatternsSlot = defineSlot('approved_patterns', () => new Set<string>());

/**
 * `command_allowlist` entries are finding keys (what "always" stores), Python Hermes's names for
 * the same classes (what it stores), exact commands or globs.
 */
function allowlisted(f: Finding, command: string, allowlist: string[]): boolean {
  return allowlist.some((a) => a === f.key || a === f.description || (f.hermes !== undefined && a === f.hermes) || a === command.trim() || (/[*?[]/.test(a) && globToRegExp(a).test(command.trim())));
}

/** The approvals.* key that decides for this unattended run. */
function unattendedKey(ctx: ToolContext): string {
  const p = ctx.platform;
  return p === 'cron' ? 'cron_mode' : p === 'cli' ? 'single_query_mode' : 'unattended_mode';
}

/** What to do when nobody can answer: approvals.cron_mode / single_query_mode / unattended_mode. */
export function unattendedPolicy(s: Pick<ToolSession, 'config' | 'platform' | 'depth'>): 'approve' | 'deny' {
  const a = s.config.approvals ?? {};
  if ((s.depth ?? 0) > 0) return s.config.delegation?.subagent_auto_approve === true ? 'approve' : 'deny';
  const mode = s.platform === 'cron' ? a.cron_mode : s.platform === 'cli' ? a.single_query_mode : a.unattended_mode;
  return mode === 'approve' ? 'approve' : 'deny';
}

/** Why an approval that was not given ended in a denial, for the model's BLOCKED line. */
export function deniedBecause(source: string): string {
  return source === 'no_responder'
    ? 'nobody is here to approve it (non-interactive run), so it was denied'
    : source === 'timeout'
      ? 'the approval request timed out, so it was denied'
      : source === 'interrupted'
        ? 'the turn was interrupted before it was approved'
        : 'the user denied it';
}

/**
 * Decides whether `command` may run, asking the person when policy says so. Container backends
 * skip the dangerous-pattern prompt (the container is the boundary); hardline blocks and
 * `approvals.deny` rules apply everywhere, even with --yolo.
 */
export async function approveCommand(command: string, ctx: ToolContext, opts: { container?: boolean; cwd?: string } = {}): Promise<ApprovalOutcome> {
  const deny = (ctx.config.approvals?.deny ?? []) as string[];
  const verdict = classifyCommand(command, { deny, home: ctx.env.HOME || homedir(), hermesHome: ctx.home, cwd: opts.cwd });
  if (verdict.action === 'allow') return { allowed: true };
  if (verdict.action === 'block') {
    const why = verdict.rule
      ? `BLOCKED: this command ${verdict.description} in config.yaml. Do not try to run it another way; tell the user what you wanted to do.`
      : `BLOCKED: ${verdict.description}. This command is never allowed, even with --yolo. Do not try to run it another way.`;
    return { allowed: false, reason: why, hardline: true };
  }
  if (opts.container) return { allowed: true, via: 'container' };
  if (ctx.yolo) return { allowed: true, via: 'yolo' };

  const allowlist = (ctx.config.command_allowlist ?? []) as string[];
  const approved = ctx.slots.get(approvedPatternsSlot);
  const pending = verdict.findings.filter((f) => !allowlisted(f, command, allowlist) && !approved.has(f.key));
  if (!pending.length) return { allowed: true, via: 'allowlist' };
  const description = pending.map((f) => f.description).join('; ');

  // Smart mode: the reviewer model first, when a person could be asked at all (unattended runs
  // follow their *_mode setting, as in manual mode).
  let reviewed = '';
  if (approvalMode(ctx.config.approvals?.mode) === 'smart' && (ctx.canAsk?.() ?? true)) {
    const v = await smartVerdict(command, description, ctx);
    if (v === 'approve') {
      resetSmartDenials(ctx.slots);
      return { allowed: true, via: 'smart' };
    }
    if (v === 'deny') {
      const breaker = recordSmartDenial(ctx.slots, Number(ctx.config.approvals?.denial_breaker_threshold ?? 3));
      // The person may still allow this one command (nothing is remembered).
      const r = await ctx.ask({ kind: 'approval', command, description: `${description} — the security reviewer judged it dangerous`, choices: ['once', 'deny'] });
      if (r.answer === 'once' && r.source === 'person') return { allowed: true, via: 'once' };
      return { allowed: false, reason: `BLOCKED by smart approval: ${description}. The reviewer judged this command genuinely dangerous. Do not retry it or try the same thing another way.${breaker}`, hardline: false };
    }
    reviewed = ' (the security reviewer was unsure)';
  }

  const { answer, source } = await ctx.ask({ kind: 'approval', command, description: description + reviewed, choices: ['once', 'session', 'always', 'deny'] });
  if (source === 'no_responder' && unattendedPolicy(ctx) === 'approve') return { allowed: true, via: 'policy' };
  switch (answer) {
    case 'once':
      return { allowed: true, via: 'once' };
    case 'session':
      for (const f of pending) approved.add(f.key);
      return { allowed: true, via: 'session' };
    case 'always': {
      for (const f of pending) approved.add(f.key);
      const next = [...new Set([...allowlist, ...pending.map((f) => f.key)])];
      ctx.config.command_allowlist = next;
      try {
        setConfigKey(ctx.home, 'command_allowlist', next);
      } catch {
        /* approved for the session even if config.yaml cannot be written */
      }
      return { allowed: true, via: 'always' };
    }
    default:
      break;
  }
  const why =
    source === 'no_responder'
      ? `nobody is here to approve it (non-interactive run), so it was denied. Find another way that avoids it, or tell the user what you wanted to run and why; they can run it themselves, rerun Hermes with --yolo, or set approvals.${unattendedKey(ctx)}: approve in config.yaml`
      : source === 'timeout'
        ? 'the approval request timed out, so it was denied'
        : source === 'interrupted'
          ? 'the turn was interrupted before it was approved'
          : 'the user denied it. Do not retry it; ask the user how to proceed';
  return { allowed: false, reason: `BLOCKED: this command needs approval (${description}) and ${why}.`, hardline: false };
}

/**
 * Running a command outside the OS sandbox (terminal's `unsandboxed`): always a person's decision,
 * once. --yolo, allowlists and the unattended *_mode settings do not answer it: turning the sandbox
 * off is an explicit setting (terminal.sandbox.mode: off).
 */
export async function approveUnsandboxed(command: string, ctx: ToolContext): Promise<ApprovalOutcome> {
  const { answer, source } = await ctx.ask({
    kind: 'approval',
    command,
    description: 'run OUTSIDE the OS sandbox: it can change anything you can (Hermes config and keys, ~/.ssh, shell start-up files)',
    choices: ['once', 'deny'],
  });
  if (answer === 'once' && source === 'person') return { allowed: true, via: 'once' };
  const why =
    source === 'no_responder'
      ? 'nobody is here to approve it (non-interactive run). Tell the user what you need to write and why; they can run it themselves or set terminal.sandbox.extra_writable'
      : 'the user did not approve it. Do not retry; ask the user how to proceed';
  return { allowed: false, reason: `BLOCKED: running outside the sandbox needs a person's approval and ${why}.`, hardline: false };
}
