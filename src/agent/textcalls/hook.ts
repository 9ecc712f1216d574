// Text-call parsing as a loop hook: text that may be a call written as text is held back while the
// answer streams (scan.ts), and an answer that is a call becomes the message's tool calls when the
// API's field has none. A call that could not be read is answered with the parse error instead of
// running (the model writes it again).
import type { Message } from '../../llm/types.ts';
import type { LoopHook, Turn } from '../hooks.ts';
import { messageText } from '../repair.ts';
import { extractTextCalls, formatsFor, textCallScanner, unreadableMessage, type TextCallScanner } from './index.ts';

let textCallSeq = 0;

/** `setting`: `model.tool_call_parser`: `auto` (default) | `none` | a format name (see index.ts). */
export function textCalls(setting?: string): LoopHook {
  /** Text calls that could not be read, by call id. */
  const unreadable = new Map<string, string>();
  let noticed = false;
  // The current model call's scanner: made with its first text (an answer of tool calls only needs
  // none); undefined until then, null when parsing is off for the call.
  let scanner: TextCallScanner | null | undefined;
  const scan = (turn: Turn) => (scanner === undefined ? (scanner = turn.withTools ? textCallScanner(setting, turn.schemas) : null) : scanner);
  const show = (turn: Turn, text: string | undefined) => {
    if (text) turn.emit({ type: 'text_delta', text });
  };

  const adopt = (msg: Message, turn: Turn, streamed: TextCallScanner | null | undefined) => {
    const text = typeof msg.content === 'string' ? msg.content : messageText(msg.content);
    if (msg.tool_calls?.length || !text) return show(turn, streamed?.finish(null));
    const sc = streamed === undefined ? scan(turn) : streamed;
    const schemas = turn.schemas;
    if (!sc) {
      // Parsing is off: say once per turn that the answer was a call the default would have run.
      if (!noticed && formatsFor(setting)?.length === 0 && extractTextCalls(text, 'auto', schemas)) {
        noticed = true;
        turn.emit({ type: 'notice', message: 'The model wrote a tool call as text; model.tool_call_parser is none, so it was not run (set it to auto to run such calls).' });
      }
      return;
    }
    const same = sc.seen === text;
    const found = extractTextCalls(text, setting, schemas, same ? sc : null);
    // (The streamed text always equals the message; should it not, only a non-call shows the rest.)
    if (same) show(turn, sc.finish(found ? { start: found.start, end: found.end } : null));
    else if (!found) show(turn, sc.finish(null));
    if (!found) return;
    const stamp = turn.now().toString(36);
    msg.tool_calls = found.calls.map((c, i) => {
      const id = `call_${stamp}${(++textCallSeq).toString(36)}_${i}`;
      if (c.error) unreadable.set(id, unreadableMessage(found.format, c.error));
      return { id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } };
    });
    msg.content = found.prose || null;
    msg.finish_reason = 'tool_calls';
  };

  return {
    turnStart() {
      unreadable.clear();
      noticed = false;
      scanner = undefined;
    },
    streamText(text, turn) {
      const sc = scan(turn);
      return sc ? sc.push(text) : text;
    },
    retract() {
      // The stream is sent again: the next attempt's text gets a fresh scanner.
      scanner = undefined;
    },
    onAnswer(msg, turn) {
      const streamed = scanner;
      scanner = undefined;
      if (turn.withTools) adopt(msg, turn, streamed);
    },
    checkToolCall(call) {
      return unreadable.size ? unreadable.get(call.id) : undefined;
    },
  };
}
