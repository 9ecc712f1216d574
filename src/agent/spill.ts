// Result limits: a tool result over its limit is stored whole (spilled to a file the model can read
// in parts) and replaced by a preview, or cut to head and tail when there is nowhere to store it;
// the results of one assistant message together stay under a cap, checked as each one finishes.
import type { LoopHook } from './hooks.ts';

export interface SpillOptions {
  /** Per-result size limit (default 100,000 chars; a tool's own `maxResultChars` wins). */
  maxResultChars?: number;
  /** Limit for all results of one assistant message (default 200,000 chars). */
  turnResultChars?: number;
  /** Stores an oversized result and returns where; without it results are truncated in place. */
  store?: (callId: string, content: string) => Promise<string>;
}

const PREVIEW_CHARS = 1500;

function preview(content: string): string {
  let p = content.slice(0, PREVIEW_CHARS);
  const nl = p.lastIndexOf('\n');
  if (nl > PREVIEW_CHARS / 2) p = p.slice(0, nl);
  return p;
}

/** The content as it fits in `limit` characters: a preview of where it was stored, or its head and tail. */
export async function limitResult(content: string, callId: string, limit: number, store?: SpillOptions['store']): Promise<string> {
  if (content.length <= limit) return content;
  if (store) {
    try {
      const where = await store(callId, content);
      return (
        `<persisted-output>\nThis result was ${content.length.toLocaleString('en-US')} characters, too large for the context. ` +
        `The full output is saved at ${where} — read it with read_file using offset/limit.\n\nPreview:\n${preview(content)}\n</persisted-output>`
      );
    } catch {
      // fall through to truncation
    }
  }
  const head = Math.floor(limit * 0.7);
  const tail = Math.floor(limit * 0.2);
  return `${content.slice(0, head)}\n\n[… ${(content.length - head - tail).toLocaleString('en-US')} characters truncated …]\n\n${content.slice(-tail)}`;
}

/**
 * Each result is limited as its tool finishes (before `tool_end` shows it); as results become final,
 * in finishing order, one that would push its batch over the cap is spilled, or cut, to fit.
 */
export function spilling(o: SpillOptions = {}): LoopHook {
  const maxResult = o.maxResultChars ?? 100_000;
  const turnChars = o.turnResultChars ?? 200_000;
  let resultChars = 0;
  return {
    turnStart() {
      resultChars = 0;
    },
    afterToolCall(run) {
      const limit = run.tool?.maxResultChars ?? maxResult;
      if (run.content.length <= limit) return;
      return limitResult(run.content, run.call.id, limit, o.store).then((c) => {
        run.content = c;
      });
    },
    finaliseResult(run) {
      const content = run.content;
      if (resultChars + content.length > turnChars && !content.startsWith('<persisted-output>')) {
        return limitResult(content, run.call.id, Math.min(content.length - 1, Math.max(PREVIEW_CHARS * 2, turnChars - resultChars)), o.store).then((c) => {
          run.content = c;
          resultChars += c.length;
        });
      }
      resultChars += content.length;
    },
    afterToolBatch() {
      resultChars = 0;
      return undefined;
    },
  };
}
