// `<think>…</think>` written into the answer (Qwen3, DeepSeek-R1 and their distills on servers run
// without a reasoning parser: llama.cpp without --reasoning-format, vLLM without --reasoning-parser,
// LM Studio, older Ollama). A block that opens the answer is streamed as reasoning, never as text;
// a closing tag with no opening one (the chat template opened the block) moves what came before it
// out of the stored answer when the response completes (`settle`). Tool calls written inside
// reasoning are thereby never read as calls (only the answer text is scanned).

const OPEN = '<think>';
const CLOSE = '</think>';

/** The length of the longest suffix of `s` that is a proper prefix of `tag`. */
function partialTag(s: string, tag: string): number {
  for (let n = Math.min(s.length, tag.length - 1); n > 0; n--) if (tag.startsWith(s.slice(-n))) return n;
  return 0;
}

export class ThinkSplitter {
  private held = '';
  private inThink = false;
  /** Non-blank answer text went out: a later `<think>` is the answer's own text. */
  private answered = false;
  /** A block was seen. */
  private thought = false;
  private readonly text: (t: string) => void;
  private readonly reasoning: (t: string) => void;

  constructor(text: (t: string) => void, reasoning: (t: string) => void) {
    this.text = text;
    this.reasoning = reasoning;
  }

  push(delta: string): void {
    let s = this.held + delta;
    this.held = '';
    while (s) {
      if (this.inThink) {
        const end = s.indexOf(CLOSE);
        if (end < 0) {
          const keep = partialTag(s, CLOSE);
          if (keep === s.length) {
            this.held = s;
            return;
          }
          this.reasoning(s.slice(0, s.length - keep));
          this.held = s.slice(s.length - keep);
          return;
        }
        this.reasoning(s.slice(0, end));
        this.inThink = false;
        s = s.slice(end + CLOSE.length).replace(/^\s+/, '');
        continue;
      }
      if (this.answered) return this.text(s);
      const lead = s.length - s.trimStart().length;
      const rest = s.slice(lead);
      if (rest.startsWith(OPEN)) {
        this.inThink = true;
        this.thought = true;
        s = rest.slice(OPEN.length);
        continue;
      }
      if (!rest || OPEN.startsWith(rest)) {
        // Blank so far, or the start of the tag: wait for more.
        this.held = s;
        return;
      }
      this.answered = true;
      // The blank lines between a block and the answer are not the answer's.
      this.text(this.thought ? rest : s);
      return;
    }
  }

  /** The end of the stream: whatever is held goes where it was heading. */
  end(): void {
    const s = this.held;
    this.held = '';
    if (!s) return;
    if (this.inThink) this.reasoning(s);
    else this.text(s);
  }
}

/**
 * A completed answer with a closing `</think>` and no opening one: the part before it is reasoning.
 * Returns [reasoning, answer], or null when the answer has no such tag.
 */
export function settleOrphanThink(text: string): [string, string] | null {
  const end = text.indexOf(CLOSE);
  if (end < 0 || text.slice(0, end).includes(OPEN)) return null;
  return [text.slice(0, end).trim(), text.slice(end + CLOSE.length).replace(/^\s+/, '')];
}
