// Which tool calls of one assistant message may run at the same time.
import { sep } from 'node:path';
import type { PathScope } from './types.ts';

export interface PlannedCall {
  index: number;
  /** Read-only / side-effect-free (e.g. web_search, read_file). */
  parallelSafe: boolean;
  /** Paths touched, for file tools; null when the tool has no path scope. */
  scope: PathScope | null;
  /** Invalid calls (unknown tool, bad args) are barriers. */
  valid: boolean;
}

export interface Segment {
  parallel: boolean;
  indices: number[];
}

const within = (a: string, b: string) => a === b || a.startsWith(b.endsWith(sep) ? b : b + sep);
const overlaps = (a: string, b: string) => within(a, b) || within(b, a);

function conflicts(scope: PathScope, reads: string[], writes: string[]): boolean {
  for (const w of scope.write) if ([...reads, ...writes].some((p) => overlaps(w, p))) return true;
  for (const r of scope.read) if (writes.some((p) => overlaps(r, p))) return true;
  return false;
}

/**
 * Splits calls into ordered segments. Parallel segments hold parallel-safe calls and file calls on
 * paths that do not overlap with a writer (readers may share paths), at most `maxParallel` each;
 * everything else runs alone, in order. Parallel runs of fewer than 2 calls become sequential.
 */
export function planSegments(calls: PlannedCall[], maxParallel = 8): Segment[] {
  const raw: Segment[] = [];
  let run: number[] = [];
  let reads: string[] = [];
  let writes: string[] = [];
  const flush = () => {
    if (run.length) raw.push({ parallel: true, indices: run });
    run = [];
    reads = [];
    writes = [];
  };
  for (const c of calls) {
    const eligible = c.valid && (c.parallelSafe || c.scope !== null);
    if (!eligible) {
      flush();
      raw.push({ parallel: false, indices: [c.index] });
      continue;
    }
    const scope = c.scope ?? { read: [], write: [] };
    if (run.length >= maxParallel || conflicts(scope, reads, writes)) flush();
    run.push(c.index);
    reads.push(...scope.read);
    writes.push(...scope.write);
  }
  flush();
  // Demote lone "parallel" runs and merge adjacent sequential segments.
  const out: Segment[] = [];
  for (const s of raw) {
    const seg = s.parallel && s.indices.length < 2 ? { parallel: false, indices: s.indices } : s;
    const prev = out[out.length - 1];
    if (prev && !prev.parallel && !seg.parallel) prev.indices.push(...seg.indices);
    else out.push({ parallel: seg.parallel, indices: [...seg.indices] });
  }
  return out;
}
