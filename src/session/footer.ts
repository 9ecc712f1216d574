// The runtime footer under final replies (/footer, display.runtime_footer): model, tokens and cost
// of the turn, for people who want to see what each answer took.
import type { TurnResult } from '../agent/types.ts';
import type { Session } from './session.ts';

export function runtimeFooter(session: Session, r: TurnResult): string {
  const u = r.usage;
  const input = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
  const cost = r.costUsd === null ? '' : ` · $${r.costUsd < 0.01 ? r.costUsd.toFixed(4) : r.costUsd.toFixed(2)}`;
  return `— ${session.runtime.model} · ${input.toLocaleString('en-US')} in / ${u.output_tokens.toLocaleString('en-US')} out${cost}`;
}

/** The reply text with the footer under it when the session asks for one. */
export function withFooter(session: Session, r: TurnResult): TurnResult {
  if (!session.prefs.footer || !r.finalText) return r;
  return { ...r, finalText: `${r.finalText}\n\n${runtimeFooter(session, r)}` };
}
