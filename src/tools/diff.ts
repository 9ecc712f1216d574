// Unified diffs for file edits: Myers' algorithm over lines, after trimming the common prefix and
// suffix (so a one-line edit in a 10k-line file costs next to nothing).

type Op = { kind: ' ' | '-' | '+'; line: string };

function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(max - d, max + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1] < v[max + k + 1]) ? v[max + k + 1] : v[max + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= n && y >= m) {
        // Backtrack.
        const ops: Op[] = [];
        let cx = n;
        let cy = m;
        for (let dd = d; dd > 0; dd--) {
          // trace[dd] holds v[-dd … dd+1] as it was before step dd.
          const pv = trace[dd];
          const at = (k: number) => pv[k + dd];
          const kk = cx - cy;
          const prevK = kk === -dd || (kk !== dd && at(kk - 1) < at(kk + 1)) ? kk + 1 : kk - 1;
          const px = at(prevK);
          const py = px - prevK;
          while (cx > px && cy > py) ops.push({ kind: ' ', line: a[--cx] }), cy--;
          if (cx === px) ops.push({ kind: '+', line: b[--cy] });
          else ops.push({ kind: '-', line: a[--cx] });
        }
        while (cx > 0 && cy > 0) ops.push({ kind: ' ', line: a[--cx] }), cy--;
        return ops.reverse();
      }
    }
  }
  return [];
}

function lines(s: string): string[] {
  if (s === '') return [];
  const l = s.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

/** A unified diff of two texts (`--- a/path`, `+++ b/path`, hunks with 3 lines of context). */
export function unifiedDiff(before: string, after: string, path: string, context = 3): string {
  if (before === after) return '';
  const a = lines(before);
  const b = lines(after);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  let mid: Op[];
  if (am.length + bm.length > 4000) mid = [...am.map((line) => ({ kind: '-' as const, line })), ...bm.map((line) => ({ kind: '+' as const, line }))];
  else mid = myers(am, bm);
  const ops: Op[] = [...a.slice(0, pre).map((line) => ({ kind: ' ' as const, line })), ...mid, ...a.slice(a.length - suf).map((line) => ({ kind: ' ' as const, line }))];
  // Group into hunks.
  const out: string[] = [`--- a/${path.replace(/^\//, '')}`, `+++ b/${path.replace(/^\//, '')}`];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  const aAt: number[] = [];
  const bAt: number[] = [];
  for (const op of ops) {
    aAt.push(aLine);
    bAt.push(bLine);
    if (op.kind !== '+') aLine++;
    if (op.kind !== '-') bLine++;
  }
  while (i < ops.length) {
    while (i < ops.length && ops[i].kind === ' ') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end].kind !== ' ') end++;
      let j = end;
      while (j < ops.length && ops[j].kind === ' ' && j - end < context * 2) j++;
      if (j < ops.length && ops[j].kind !== ' ' && j - end <= context * 2) {
        end = j;
        continue;
      }
      end = Math.min(ops.length, end + context);
      break;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    const aStart = aCount ? aAt[start] : aAt[start] - 1;
    const bStart = bCount ? bAt[start] : bAt[start] - 1;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    i = end;
  }
  return out.join('\n') + '\n';
}
