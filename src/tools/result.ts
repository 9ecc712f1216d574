import type { ToolOutcome } from '../agent/types.ts';

/** A JSON result for the model. */
export const ok = (value: Record<string, unknown>): string => JSON.stringify(value);

/** An error result the model can read and act on. */
export const fail = (message: string, extra: Record<string, unknown> = {}): ToolOutcome => ({
  content: JSON.stringify({ error: message, ...extra }),
  isError: true,
});
