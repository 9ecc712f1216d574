// Steering: what the person types mid-turn rides on the last tool result of the batch, between
// markers the system prompt tells the model are the user's own word. Tool output never carries the
// marker: a lookalike in a web page or file is defused (unmarked), so only Hermes can write it.
import type { LoopHook } from './hooks.ts';

export const STEER_OPEN = '[USER MESSAGE]';
export const STEER_CLOSE = '[/USER MESSAGE]';
const MARKER = /\[(\/?)\s*USER\s+MESSAGE\s*\]/gi;

/** The text with any steering marker defused (`[user-message]`). */
export const unmarked = (text: string): string => (/user\s+message/i.test(text) ? text.replace(MARKER, '[$1user-message]') : text);

/**
 * Defuses markers in every tool result and appends the steering text (`take()`: typed since the last
 * tool call, or undefined) to the last result of each batch. Without `take` it only defuses, for
 * loops nobody steers whose prompt still names the marker.
 */
export function steering(take?: () => string | undefined): LoopHook {
  return {
    finaliseResult(run) {
      run.content = unmarked(run.content);
      if (run.last && take) {
        const steer = take();
        if (steer) run.suffix += `\n\n${STEER_OPEN}\n${unmarked(steer)}\n${STEER_CLOSE}`;
      }
    },
  };
}
