// Builds the ToolContext a handler gets: the call's own members over its session, which stays the
// prototype so that every read is live (cwd after a /worktree move, the notifier after /new).
// The execution backends load on the first files()/exec() call, never at start-up.
import type { ToolCallContext } from '../agent/types.ts';
import type { ToolContext, ToolSession } from './types.ts';

export function toolContext(call: ToolCallContext, session: ToolSession): ToolContext {
  const ctx = Object.create(session) as ToolContext;
  Object.assign(ctx, call);
  ctx.slot = (slot) => session.slots.get(slot);
  ctx.files = async () => (await import('./env/index.ts')).fileOps(session);
  ctx.exec = async () => (await import('./env/index.ts')).getBackend(session);
  return ctx;
}
