// Destructive slash commands (/clear, /new, /undo, /quit --delete) ask first in the CLI, as Hermes
// does: Approve once / Always approve (sets approvals.destructive_slash_confirm: false) / Cancel.
import { setConfigKey } from '../state/config.ts';
import type { CommandContext } from './registry.ts';

export const CONFIRM_CHOICES = ['Approve once', 'Always approve (stop asking)', 'Cancel'];

/** Words that skip the question: `/new now`, `/new --yes`, `/new -y`. */
export function skipWord(args: string): { skip: boolean; rest: string } {
  const parts = args.split(/\s+/).filter(Boolean);
  const skip = parts.some((p) => ['now', '--yes', '-y'].includes(p.toLowerCase()));
  return { skip, rest: parts.filter((p) => !['now', '--yes', '-y'].includes(p.toLowerCase())).join(' ') };
}

/** True when the command may go ahead. Only the CLI asks; other surfaces act at once. */
export async function confirmDestructive(ctx: CommandContext, what: string, skip = false): Promise<boolean> {
  if (skip || ctx.surface !== 'cli') return true;
  const approvals = (ctx.session.settings.config.approvals ?? {}) as { destructive_slash_confirm?: boolean };
  if (approvals.destructive_slash_confirm === false) return true;
  const { answer } = await ctx.session.broker.ask({ kind: 'clarify', question: `${what} Go ahead?`, choices: CONFIRM_CHOICES });
  const a = String(answer ?? '').trim().toLowerCase();
  if (a === '1' || a.startsWith('approve once') || a === 'y' || a === 'yes') return true;
  if (a === '2' || a.startsWith('always')) {
    ctx.session.settings.set('approvals.destructive_slash_confirm', false);
    try {
      setConfigKey(ctx.session.info.home, 'approvals.destructive_slash_confirm', false);
    } catch {
      /* this session only */
    }
    return true;
  }
  return false;
}
