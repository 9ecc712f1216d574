// What the gateway did while it kept messages waiting: reads a latency timeline
// (BENCH_GATEWAY_TIMELINE in bench/gateway.ts) and, optionally, a CPU profile of the same run
// (BENCH_GATEWAY_PROFILE), and prints
//   - the slowest messages and the gateway's event-loop stalls and GC pauses around them,
//   - for the longest stalls, the functions the profile sampled during each (mapped to src/).
//   node bench/stalls.ts timeline.json [profile.cpuprofile] [stalls=10]
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

type Stall = [number, number, string];
interface Timeline {
  messages: [number, number, number][];
  gateway: Stall[];
  bench: Stall[];
  clock?: [number, number];
}
interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Node {
  id: number;
  callFrame: Frame;
  parent?: number;
  children?: number[];
}

const args = process.argv.slice(2);
const nArg = args.find((a, i) => i > 0 && /^\d+$/.test(a));
const [tlFile, profFile] = args.filter((a) => a !== nArg);
if (!tlFile) {
  console.error('usage: node bench/stalls.ts timeline.json [profile.cpuprofile] [stalls=10]');
  process.exit(2);
}
const tl = JSON.parse(readFileSync(tlFile, 'utf8')) as Timeline;
const n = Number(nArg ?? 10);
const t0 = tl.messages[0]?.[0] ?? 0;
const rel = (t: number) => `${((t - t0) / 1000).toFixed(2).padStart(7)} s`;

const lat = tl.messages.map((m) => m[1]).sort((a, b) => a - b);
const pct = (p: number) => lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)];
console.log(`${tl.messages.length} messages: p50 ${pct(50).toFixed(1)} ms, p90 ${pct(90).toFixed(1)}, p99 ${pct(99).toFixed(1)}, max ${lat[lat.length - 1].toFixed(1)}`);
const sum = (xs: Stall[], what: (s: Stall) => boolean) => {
  const ys = xs.filter(what);
  return `${ys.length} (${ys.reduce((a, s) => a + s[1], 0).toFixed(0)} ms, longest ${Math.max(0, ...ys.map((s) => s[1])).toFixed(0)})`;
};
const inPhase = (s: Stall) => s[0] >= t0;
console.log(`gateway during the phase: loop stalls > 10 ms ${sum(tl.gateway, (s) => inPhase(s) && s[2] === 'loop')}, major GCs ${sum(tl.gateway, (s) => inPhase(s) && s[2] === 'gc-major')}, minor GCs > 5 ms ${sum(tl.gateway, (s) => inPhase(s) && s[2] === 'gc-minor')}`);
console.log(`bench (fake servers) loop stalls > 10 ms: ${sum(tl.bench, inPhase)}`);

// Messages slower than p99: what stalled while each waited.
const slow = tl.messages.filter((m) => m[1] >= pct(99));
const overlap = (s: Stall, a: number, b: number) => s[0] < b && s[0] + s[1] > a;
let explained = 0;
for (const m of slow) if (tl.gateway.some((s) => overlap(s, m[0], m[0] + m[1]) && s[1] >= 20) || tl.bench.some((s) => overlap(s, m[0], m[0] + m[1]) && s[1] >= 20)) explained++;
console.log(`${slow.length} messages at or over p99: ${explained} waited through a stall ≥ 20 ms (gateway or bench)`);

// Clusters of slow messages by second.
const bySec = new Map<number, number[]>();
for (const m of slow) {
  const k = Math.floor((m[0] - t0) / 1000);
  bySec.set(k, [...(bySec.get(k) ?? []), m[1]]);
}
console.log('slow messages by second sent: ' + [...bySec].map(([k, v]) => `${k}s×${v.length} (≤${Math.max(...v).toFixed(0)} ms)`).join(', '));

const top = tl.gateway.filter((s) => inPhase(s) && s[1] >= 20).sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`\nlongest gateway stalls in the phase:`);

let samplesIn: ((a: number, b: number) => Map<string, number>) | null = null;
if (profFile && tl.clock) {
  const p = JSON.parse(readFileSync(profFile, 'utf8')) as { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  for (const x of p.nodes) for (const c of x.children ?? []) byId.get(c)!.parent = x.id;
  // Profile times are monotonic µs; the clock pair places them on the epoch.
  const [mono, epoch] = tl.clock;
  const times: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) times.push(((t += d) / 1000 - mono) + epoch);
  const maps = new Map<string, SourceMap | null>();
  const where = (f: Frame): string => {
    if (!f.url) return `(${f.functionName || 'native'})`;
    let map = maps.get(f.url);
    if (map === undefined) {
      const path = f.url.startsWith('file:') ? fileURLToPath(f.url) : f.url;
      map = existsSync(`${path}.map`) ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8'))) : null;
      maps.set(f.url, map);
    }
    const e = map?.findEntry(f.lineNumber, f.columnNumber);
    return e && 'originalSource' in e ? `${f.functionName || '(anon)'} ${e.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/')}:${e.originalLine + 1}` : `${f.functionName || '(anon)'} ${f.url.replace(/^.*\//, '')}`;
  };
  /** The innermost frame from src/ on the stack (else the leaf), per sample. */
  const label = new Map<number, string>();
  const labelOf = (id: number): string => {
    let l = label.get(id);
    if (l) return l;
    let x: Node | undefined = byId.get(id);
    const leaf = where(x!.callFrame);
    l = '';
    for (; x; x = x.parent !== undefined ? byId.get(x.parent) : undefined) {
      const w = where(x.callFrame);
      if (/ src\//.test(w)) {
        l = w === leaf ? w : `${w} ← ${leaf}`;
        break;
      }
    }
    l ||= leaf;
    label.set(id, l);
    return l;
  };
  samplesIn = (a, b) => {
    const m = new Map<string, number>();
    for (let i = 0; i < times.length; i++) if (times[i] >= a && times[i] <= b) m.set(labelOf(p.samples[i]), (m.get(labelOf(p.samples[i])) ?? 0) + 1);
    return m;
  };
}
for (const s of top) {
  console.log(`${rel(s[0])}  ${s[1].toFixed(0).padStart(5)} ms  ${s[2]}`);
  if (!samplesIn) continue;
  const m = samplesIn(s[0], s[0] + s[1]);
  const total = [...m.values()].reduce((a, b) => a + b, 0);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`             ${((v / total) * 100).toFixed(0).padStart(3)}%  ${k}`);
}
