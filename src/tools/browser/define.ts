// The shape every browser tool shares: toolset, availability and its reason, and (for all but
// browser_navigate and browser_close) the session's open page — so each tool file holds only its
// own schema and action. Light: the helpers (common.ts, playwright) load on the first call.
import type { z } from 'zod';
import type { Page } from 'playwright-core';
import type { ToolOutcome } from '../../agent/types.ts';
import { defineTool } from '../registry.ts';
import type { ToolContext, ToolDefinition } from '../types.ts';
import type { Zod } from '../zod.ts';
import { browserAvailable, browserUnavailable } from './config.ts';
import type { BrowserSession } from './manager.ts';

export type Common = typeof import('./common.ts');
type Result = Promise<string | ToolOutcome>;

interface Base<S extends z.ZodType> {
  name: string;
  emoji: string;
  description: string;
  schema: (zod: Zod) => S;
}

/** A browser tool that does not need an open page (it may open one). */
export function browserTool<S extends z.ZodType>(def: Base<S> & { run(a: z.infer<S>, ctx: ToolContext, c: Common): Result }): ToolDefinition<S> {
  return defineTool({
    name: def.name,
    toolset: 'browser',
    emoji: def.emoji,
    description: def.description,
    schema: def.schema,
    check: browserAvailable,
    requirement: browserUnavailable,
    async handler(a, ctx) {
      return def.run(a, ctx, await import('./common.ts'));
    },
  });
}

/** A browser tool that acts on the open page (fails with "call browser_navigate first" without one). */
export function pageTool<S extends z.ZodType>(def: Base<S> & { run(a: z.infer<S>, ctx: ToolContext, h: { c: Common; b: BrowserSession; page: Page }): Result }): ToolDefinition<S> {
  return browserTool({
    ...def,
    async run(a, ctx, c) {
      const open = await c.openPage(ctx);
      return c.isOutcome(open) ? open : def.run(a, ctx, { c, ...open });
    },
  });
}
