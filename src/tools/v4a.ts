// The V4A multi-file patch format (as used by OpenAI's apply_patch and Hermes's patch tool):
//
//   *** Begin Patch
//   *** Update File: src/app.py        (optionally followed by: *** Move to: src/main.py)
//   @@ def handler                     (optional anchor: search starts after this line)
//    context line
//   -removed line
//   +added line
//   *** Add File: notes.txt
//   +first line
//   *** Delete File: old.txt
//   *** Move File: a.txt -> b.txt
//   *** End Patch
//
// Parsing and applying are pure; the tool does the I/O.

export type PatchOp =
  | { kind: 'update'; path: string; moveTo?: string; hunks: Hunk[] }
  | { kind: 'add'; path: string; content: string }
  | { kind: 'delete'; path: string }
  | { kind: 'move'; path: string; to: string };

export interface Hunk {
  anchor?: string;
  /** Context and removed lines, in order (what must be found). */
  old: string[];
  /** Context and added lines, in order (what replaces it). */
  new: string[];
  /** `*** End of File`: the hunk sits at the end. */
  atEnd: boolean;
}

export class PatchError extends Error {}

/** The format, told with a parse error (the tool's description only names it). */
export const V4A_FORMAT =
  'Format: "*** Begin Patch", then per file "*** Update File: <path>" (hunks: optional "@@ <anchor line>", then lines starting ' +
  'with " " context, "-" removed, "+" added), "*** Add File: <path>" (every line "+"), "*** Delete File: <path>", or ' +
  '"*** Move File: <from> -> <to>"; end with "*** End Patch".';

export function parseV4A(text: string): PatchOp[] {
  try {
    return parseOps(text);
  } catch (e) {
    if (e instanceof PatchError) throw new PatchError(`${e.message} ${V4A_FORMAT}`);
    throw e;
  }
}

function parseOps(text: string): PatchOp[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length && !lines[i].trim()) i++;
  if (lines[i]?.trim() !== '*** Begin Patch') throw new PatchError('A V4A patch starts with "*** Begin Patch".');
  i++;
  const ops: PatchOp[] = [];
  let ended = false;
  while (i < lines.length) {
    const line = lines[i];
    const t = line.trim();
    if (t === '*** End Patch') {
      ended = true;
      break;
    }
    let m: RegExpExecArray | null;
    if ((m = /^\*\*\* Add File: (.+)$/.exec(t))) {
      i++;
      const body: string[] = [];
      while (i < lines.length && !lines[i].startsWith('*** ')) {
        const l = lines[i];
        if (l.startsWith('+')) body.push(l.slice(1));
        else if (l === '') body.push('');
        else throw new PatchError(`Add File ${m[1]}: every content line starts with "+" (line ${i + 1}: ${JSON.stringify(l.slice(0, 60))}).`);
        i++;
      }
      while (body.length && body[body.length - 1] === '' && lines[i - 1] === '') body.pop();
      ops.push({ kind: 'add', path: m[1].trim(), content: body.length ? body.join('\n') + '\n' : '' });
      continue;
    }
    if ((m = /^\*\*\* Delete File: (.+)$/.exec(t))) {
      ops.push({ kind: 'delete', path: m[1].trim() });
      i++;
      continue;
    }
    if ((m = /^\*\*\* Move File: (.+?)\s*->\s*(.+)$/.exec(t))) {
      ops.push({ kind: 'move', path: m[1].trim(), to: m[2].trim() });
      i++;
      continue;
    }
    if ((m = /^\*\*\* Update File: (.+)$/.exec(t))) {
      const op: PatchOp & { kind: 'update' } = { kind: 'update', path: m[1].trim(), hunks: [] };
      i++;
      const mv = /^\*\*\* Move to: (.+)$/.exec(lines[i]?.trim() ?? '');
      if (mv) {
        op.moveTo = mv[1].trim();
        i++;
      }
      let hunk: Hunk | null = null;
      const flush = () => {
        if (hunk && (hunk.old.length || hunk.new.length)) op.hunks.push(hunk);
        hunk = null;
      };
      while (i < lines.length) {
        const l = lines[i];
        if (l.startsWith('*** End of File')) {
          if (hunk) (hunk as Hunk).atEnd = true;
          i++;
          continue;
        }
        if (l.startsWith('*** ')) break;
        if (l.startsWith('@@')) {
          flush();
          const anchor = l.replace(/^@@+\s?/, '').replace(/\s*@@+\s*$/, '');
          hunk = { anchor: anchor.trim() ? anchor : undefined, old: [], new: [], atEnd: false };
          i++;
          continue;
        }
        hunk ??= { old: [], new: [], atEnd: false };
        if (l.startsWith('+')) hunk.new.push(l.slice(1));
        else if (l.startsWith('-')) hunk.old.push(l.slice(1));
        else {
          const ctx = l.startsWith(' ') ? l.slice(1) : l;
          hunk.old.push(ctx);
          hunk.new.push(ctx);
        }
        i++;
      }
      flush();
      // A trailing blank context line is usually the patch's own final newline.
      for (const h of op.hunks) {
        while (h.old.length && h.new.length && h.old[h.old.length - 1] === '' && h.new[h.new.length - 1] === '' ) {
          h.old.pop();
          h.new.pop();
        }
      }
      if (!op.hunks.length && !op.moveTo) throw new PatchError(`Update File ${op.path} has no changes.`);
      ops.push(op);
      continue;
    }
    if (!t) {
      i++;
      continue;
    }
    throw new PatchError(`Unexpected line ${i + 1} in the patch: ${JSON.stringify(line.slice(0, 80))}. Expected a "*** Update/Add/Delete/Move File:" header.`);
  }
  if (!ended) throw new PatchError('The patch is missing "*** End Patch".');
  if (!ops.length) throw new PatchError('The patch contains no file operations.');
  return ops;
}

function findBlock(lines: string[], block: string[], from: number, atEnd: boolean): number {
  const tries: ((s: string) => string)[] = [(s) => s, (s) => s.trimEnd(), (s) => s.trim(), (s) => s.replace(/\s+/g, ' ').trim()];
  for (const norm of tries) {
    const want = block.map(norm);
    const check = (i: number) => {
      for (let j = 0; j < want.length; j++) if (norm(lines[i + j]) !== want[j]) return false;
      return true;
    };
    if (atEnd) {
      const i = lines.length - block.length;
      if (i >= from && check(i)) return i;
      continue;
    }
    for (let i = from; i + block.length <= lines.length; i++) if (check(i)) return i;
  }
  return -1;
}

/** Applies the hunks of one Update to `content`. Throws PatchError with the hunk that failed. */
export function applyHunks(content: string, hunks: Hunk[], path: string): string {
  const crlf = /\r\n/.test(content);
  const trailingNewline = content.endsWith('\n');
  const lines = content.replace(/\r\n/g, '\n').split('\n');
  if (trailingNewline) lines.pop();
  let pos = 0;
  hunks.forEach((h, n) => {
    let from = pos;
    if (h.anchor) {
      const a = h.anchor.trim();
      let idx = lines.findIndex((l, k) => k >= pos && l.trim() === a);
      if (idx < 0) idx = lines.findIndex((l, k) => k >= pos && l.includes(a));
      if (idx < 0) idx = lines.findIndex((l) => l.trim() === a || l.includes(a));
      if (idx < 0) throw new PatchError(`${path}, hunk ${n + 1}: the anchor line "@@ ${a}" was not found.`);
      from = idx + (h.old.length && lines[idx].trim() === h.old[0].trim() ? 0 : 1);
    }
    if (!h.old.length) {
      const at = h.atEnd ? lines.length : h.anchor ? from : lines.length;
      lines.splice(at, 0, ...h.new);
      pos = at + h.new.length;
      return;
    }
    let at = findBlock(lines, h.old, from, h.atEnd);
    if (at < 0 && from > 0) at = findBlock(lines, h.old, 0, h.atEnd);
    if (at < 0) {
      const preview = h.old.slice(0, 4).map((l) => `  ${l}`).join('\n');
      throw new PatchError(`${path}, hunk ${n + 1}: these lines were not found (read the file again and regenerate the patch):\n${preview}`);
    }
    lines.splice(at, h.old.length, ...h.new);
    pos = at + h.new.length;
  });
  let out = lines.join('\n') + (trailingNewline || !content ? '\n' : '');
  if (crlf) out = out.replace(/\n/g, '\r\n');
  return out;
}
