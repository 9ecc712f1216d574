// Sums a sampling heap profile (.heapprofile, e.g. from BENCH_GATEWAY_ALLOC in bench/gateway.ts) or
// a CPU profile (.cpuprofile, BENCH_GATEWAY_PROFILE): bytes allocated (or ms run) by function
// (self), and by the nearest of our own source files up the stack (so what a library or Node does
// on our behalf counts for the caller in src/). Positions in the bundle are mapped back to src/
// through its source map.
//   node bench/allocs.ts profile.heapprofile|.cpuprofile [messages=3000] [top=25] [src/file.ts: only what it causes; 'outside': what no src/ frame is under]
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  callFrame: Frame;
  selfSize: number;
  children: ProfileNode[];
}

const [file, msgArg, topArg, under] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/allocs.ts profile.heapprofile [messages=3000] [top=25]');
  process.exit(2);
}
const messages = Number(msgArg ?? 3000);
const top = Number(topArg ?? 25);
// A CPU profile (.cpuprofile, BENCH_GATEWAY_PROFILE) is a flat node list with sample counts: made
// into the same tree, with samples (in ms) in place of bytes.
const raw = JSON.parse(readFileSync(file, 'utf8')) as { head?: ProfileNode; nodes?: { id: number; callFrame: Frame; hitCount?: number; children?: number[] }[]; startTime?: number; endTime?: number; samples?: number[] };
const cpu = !raw.head;
const msPerSample = cpu && raw.samples?.length ? (raw.endTime! - raw.startTime!) / 1000 / raw.samples.length : 1;
const profile: { head: ProfileNode } = raw.head
  ? { head: raw.head }
  : (() => {
      const byId = new Map(raw.nodes!.map((n) => [n.id, { callFrame: n.callFrame, selfSize: (n.hitCount ?? 0) * msPerSample, children: [] as ProfileNode[], ids: n.children ?? [] }]));
      for (const n of byId.values()) n.children = n.ids.map((id) => byId.get(id)!);
      return { head: byId.get(raw.nodes![0].id)! };
    })();

const maps = new Map<string, SourceMap | null>();
function sourceOf(f: Frame): { where: string; ours: string | null } {
  if (!f.url) return { where: `(${f.functionName || 'native'})`, ours: null };
  let map = maps.get(f.url);
  if (map === undefined) {
    map = null;
    try {
      const path = f.url.startsWith('file:') ? fileURLToPath(f.url) : f.url;
      if (existsSync(`${path}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(f.url, map);
  }
  const e = map?.findEntry(f.lineNumber, f.columnNumber);
  const src = e && 'originalSource' in e ? e.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/') : f.url.replace(/^.*\//, '');
  const line = e && 'originalLine' in e ? e.originalLine + 1 : f.lineNumber + 1;
  return { where: `${src}:${line}`, ours: src.startsWith('src/') ? src : null };
}

const bySelf = new Map<string, number>();
const byOurs = new Map<string, number>();
let total = 0;
const walk = (n: ProfileNode, ours: string | null) => {
  const s = sourceOf(n.callFrame);
  const mine = s.ours ?? ours;
  if (n.selfSize && (!under || mine === under || (under === 'outside' && mine === null))) {
    total += n.selfSize;
    const k = `${n.callFrame.functionName || '(anonymous)'}  ${s.where}`;
    bySelf.set(k, (bySelf.get(k) ?? 0) + n.selfSize);
    const o = mine ?? '(outside src/)';
    byOurs.set(o, (byOurs.get(o) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, mine);
};
walk(profile.head, null);

const unit = cpu ? { all: 'ms', div: 1, per: 'µs/msg', perMul: 1000, what: 'runs' } : { all: 'KB', div: 1024, per: 'B/msg', perMul: 1, what: 'allocates' };
const fmt = (v: number) => `${(v / unit.div).toFixed(0).padStart(9)}  ${((v * unit.perMul) / messages).toFixed(0).padStart(7)} ${unit.per}`;
console.log(cpu ? `CPU: ${total.toFixed(0)} ms sampled, ${((total * 1000) / messages).toFixed(0)} µs per message (over ${messages})` : `allocated: ${(total / 1048576).toFixed(1)} MB in all, ${(total / messages / 1024).toFixed(1)} KB per message (over ${messages})`);
console.log(`\nby our source file (what it ${unit.what}, directly or through libraries it calls), ${unit.all}:`);
for (const [k, v] of [...byOurs].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${fmt(v)}  ${k}`);
console.log(`\nby function (self), ${unit.all}:`);
for (const [k, v] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${fmt(v)}  ${k}`);
