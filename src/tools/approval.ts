// Asking before dangerous commands: policy verdict → allowlists → the person.
import { classifyCommand } from '../policy/dangerous.ts';
import { setConfigKey } from '../state/config.ts';
import type { ToolContext } from './types.ts';

export type ApprovalOutcome = { allowed: true } | { allowed: false; reason: string };

function sessionApprovals(state: Map<string, unknown>): Set<string> {
  let s = state.get('approved_patterns') as Set<string> | undefined;
  if (!s) {
    s = new Set();
    state.set('approved_patterns', s);
  }
  return s;
}

/** Decides whether `command` may run, asking the person when policy says so. */
export async function approveCommand(command: string, ctx: ToolContext): Promise<ApprovalOutcome> {
  const s = ctx.services;
  const verdict = classifyCommand(command);
  if (verdict.action === 'allow') return { allowed: true };
  if (verdict.action === 'block')
    return { allowed: false, reason: `Blocked: ${verdict.description}. This command is never allowed, even with --yolo.` };
  if (s.yolo) return { allowed: true };
  const allowlist = s.config.command_allowlist ?? [];
  if (allowlist.includes(verdict.key) || allowlist.includes(command)) return { allowed: true };
  const approved = sessionApprovals(s.state);
  if (approved.has(verdict.key)) return { allowed: true };

  const { answer, source } = await ctx.ask({
    kind: 'approval',
    command,
    description: verdict.description,
    choices: ['once', 'session', 'always', 'deny'],
  });
  switch (answer) {
    case 'once':
      return { allowed: true };
    case 'session':
      approved.add(verdict.key);
      return { allowed: true };
    case 'always':
      approved.add(verdict.key);
      s.config.command_allowlist = [...allowlist, verdict.key];
      setConfigKey(s.home, 'command_allowlist', s.config.command_allowlist);
      return { allowed: true };
    default:
      break;
  }
  const why =
    source === 'no_responder'
      ? 'nobody is here to approve it (non-interactive run), so it was denied. Tell the user what you wanted to run and why; they can run it themselves or rerun Hermes with --yolo'
      : source === 'timeout'
        ? 'the approval request timed out, so it was denied'
        : source === 'interrupted'
          ? 'the turn was interrupted before it was approved'
          : 'the user denied it. Do not retry it; ask the user how to proceed';
  return { allowed: false, reason: `This command needs approval (${verdict.description}) and ${why}.` };
}
