// Builds the ToolContext a handler gets: the call's own members over its session, which stays the
// prototype so that every read is live (cwd after a /worktree move, the notifier after /new).
import type { ToolCallContext } from '../agent/types.ts';
import { fileOps, getBackend } from './env/index.ts';
import type { ToolContext, ToolSession } from './types.ts';

export function toolContext(call: ToolCallContext, session: ToolSession): ToolContext {
  const ctx = Object.create(session) as ToolContext;
  Object.assign(ctx, call);
  ctx.slot = (slot) => session.slots.get(slot);
  ctx.files = () => fileOps(session);
  ctx.exec = () => getBackend(session);
  return ctx;
}
