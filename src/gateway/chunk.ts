// Replies longer than a platform allows are split: at a paragraph break if there is one in the
// last third of the chunk, else a line break, else a space; a code fence open at a split is closed
// and reopened (same language) in the next chunk so every chunk renders on its own.

function splitPoint(text: string, limit: number): number {
  const window = text.slice(0, limit);
  const min = Math.floor(limit / 3);
  for (const sep of ['\n\n', '\n', ' ']) {
    const i = window.lastIndexOf(sep);
    if (i >= min) return i + sep.length;
  }
  return limit;
}

export function chunkMessage(text: string, limit: number): string[] {
  if (!Number.isFinite(limit) || text.length <= limit) return text ? [text] : [];
  const out: string[] = [];
  let rest = text;
  let reopen = '';
  while (rest.length) {
    const budget = limit - reopen.length - 4; // room for a closing fence
    if (budget < 16) throw new Error(`message limit ${limit} is too small to split into`);
    let piece: string;
    if (reopen.length + rest.length <= limit) {
      piece = rest;
      rest = '';
    } else {
      const at = splitPoint(rest, budget);
      piece = rest.slice(0, at);
      rest = rest.slice(at);
    }
    let chunk = reopen + piece;
    // Is a fence still open at the end of this chunk?
    const fences = [...chunk.matchAll(/^ {0,3}```([^\n`]*)$/gm)];
    const open = fences.length % 2 === 1 ? fences[fences.length - 1][1].trim() : null;
    if (open !== null && rest) {
      chunk = chunk.replace(/\n?$/, '\n') + '```';
      reopen = '```' + open + '\n';
    } else reopen = '';
    out.push(chunk.replace(/\s+$/, '') || chunk);
    if (!rest) break;
  }
  return out.filter((c) => c.trim());
}

/** `[SILENT]` at the start of a reply: the agent decided nothing needs to be sent. */
export function isSilent(text: string): boolean {
  return /^\s*\[SILENT\]/i.test(text);
}
