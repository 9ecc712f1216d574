// Compares two V8 heap snapshots (.heapsnapshot, as v8.writeHeapSnapshot writes them): which
// constructors (and other node kinds) grew in count and in self size between the first and the
// second, and for the ones that grew most, sample retainer chains in the second snapshot (from the
// object up to a GC root), so a leak shows where it is held.
//   node bench/heapdiff.ts before.heapsnapshot after.heapsnapshot [top=25] [chains=4]
// BENCH_GATEWAY_HEAPSNAP=<dir> makes bench/gateway.ts write such a pair.
import { readFileSync } from 'node:fs';

interface Snapshot {
  nodeFields: number;
  types: string[];
  edgeTypes: string[];
  nodes: Uint32Array | number[];
  edges: number[];
  strings: string[];
  typeOff: number;
  nameOff: number;
  sizeOff: number;
  edgeCountOff: number;
  edgeFields: number;
  edgeTypeOff: number;
  edgeNameOff: number;
  edgeToOff: number;
}

function load(path: string): Snapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const m = raw.snapshot.meta;
  return {
    nodeFields: m.node_fields.length,
    types: m.node_types[0],
    edgeTypes: m.edge_types[0],
    nodes: raw.nodes,
    edges: raw.edges,
    strings: raw.strings,
    typeOff: m.node_fields.indexOf('type'),
    nameOff: m.node_fields.indexOf('name'),
    sizeOff: m.node_fields.indexOf('self_size'),
    edgeCountOff: m.node_fields.indexOf('edge_count'),
    edgeFields: m.edge_fields.length,
    edgeTypeOff: m.edge_fields.indexOf('type'),
    edgeNameOff: m.edge_fields.indexOf('name_or_index'),
    edgeToOff: m.edge_fields.indexOf('to_node'),
  };
}

/** Index of each node's first edge (node index / nodeFields → edge offset). */
function firstEdges(s: Snapshot): Uint32Array {
  const out = new Uint32Array(s.nodes.length / s.nodeFields + 1);
  let e = 0;
  for (let i = 0, n = 0; i < s.nodes.length; i += s.nodeFields, n++) {
    out[n] = e;
    e += s.nodes[i + s.edgeCountOff] * s.edgeFields;
  }
  out[out.length - 1] = e;
  return out;
}

const edgeCache = new WeakMap<Snapshot, Uint32Array>();

/** What a node is counted as: its constructor for objects and closures (plain objects with their first property names), its kind otherwise. */
function label(s: Snapshot, i: number): string {
  const type = s.types[s.nodes[i + s.typeOff]];
  const name = s.strings[s.nodes[i + s.nameOff]];
  if (type === 'object' && name === 'Object') {
    let fe = edgeCache.get(s);
    if (!fe) edgeCache.set(s, (fe = firstEdges(s)));
    const n = i / s.nodeFields;
    const props: string[] = [];
    for (let e = fe[n]; e < fe[n + 1] && props.length < 4; e += s.edgeFields)
      if (s.edgeTypes[s.edges[e + s.edgeTypeOff]] === 'property') {
        const p = s.strings[s.edges[e + s.edgeNameOff]];
        if (p !== '__proto__' && p !== 'map') props.push(p);
      }
    return `Object{${props.join(',')}}`;
  }
  if (type === 'object' || type === 'native') return name.length > 60 ? `${name.slice(0, 60)}…` : name;
  if (type === 'closure') return `(closure) ${name || '(anonymous)'}`;
  return `(${type})`;
}

function census(s: Snapshot): Map<string, { count: number; size: number }> {
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < s.nodes.length; i += s.nodeFields) {
    const k = label(s, i);
    const e = out.get(k) ?? { count: 0, size: 0 };
    e.count++;
    e.size += s.nodes[i + s.sizeOff];
    out.set(k, e);
  }
  return out;
}

/**
 * For every node (by index / nodeFields): its retainer nearest to the GC root (node 0, breadth
 * first over strong edges) and the edge from it, so a chain reads as DevTools shows it.
 */
function retainers(s: Snapshot): { from: Int32Array; edge: Int32Array } {
  const n = s.nodes.length / s.nodeFields;
  const fe = firstEdges(s);
  const from = new Int32Array(n).fill(-1);
  const edge = new Int32Array(n).fill(-1);
  const seen = new Uint8Array(n);
  let queue = [0];
  seen[0] = 1;
  while (queue.length) {
    const next: number[] = [];
    for (const cur of queue)
      for (let e = fe[cur]; e < fe[cur + 1]; e += s.edgeFields) {
        const type = s.edgeTypes[s.edges[e + s.edgeTypeOff]];
        if (type === 'weak' || type === 'shortcut') continue;
        const to = s.edges[e + s.edgeToOff] / s.nodeFields;
        if (seen[to]) continue;
        seen[to] = 1;
        from[to] = cur;
        edge[to] = e;
        next.push(to);
      }
    queue = next;
  }
  return { from, edge };
}

function edgeName(s: Snapshot, e: number): string {
  const type = s.edgeTypes[s.edges[e + s.edgeTypeOff]];
  const v = s.edges[e + s.edgeNameOff];
  return type === 'element' || type === 'hidden' ? `[${v}]` : String(s.strings[v]);
}

function chain(s: Snapshot, r: { from: Int32Array; edge: Int32Array }, node: number, depth = 14): string {
  const parts: string[] = [];
  const seen = new Set<number>();
  let cur = node;
  for (let d = 0; d < depth && cur >= 0 && !seen.has(cur); d++) {
    seen.add(cur);
    const e = r.edge[cur];
    const up = r.from[cur];
    parts.push(up >= 0 && e >= 0 ? `${label(s, up * s.nodeFields)}.${edgeName(s, e)}` : label(s, cur * s.nodeFields));
    cur = up;
  }
  return parts.join(' ← ');
}

const [a, b, topArg, chainsArg] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/heapdiff.ts before.heapsnapshot after.heapsnapshot [top=25] [chains=4]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const chains = Number(chainsArg ?? 4);
const before = load(a);
const ca = census(before);
const after = load(b);
const cb = census(after);
const total = (c: Map<string, { size: number }>) => [...c.values()].reduce((x, y) => x + y.size, 0);
console.log(`heap: ${(total(ca) / 1048576).toFixed(1)} MB → ${(total(cb) / 1048576).toFixed(1)} MB; nodes ${before.nodes.length / before.nodeFields} → ${after.nodes.length / after.nodeFields}`);
const rows = [...new Set([...ca.keys(), ...cb.keys()])].map((k) => {
  const x = ca.get(k) ?? { count: 0, size: 0 };
  const y = cb.get(k) ?? { count: 0, size: 0 };
  return { k, dc: y.count - x.count, ds: y.size - x.size, count: y.count };
});
rows.sort((p, q) => q.ds - p.ds);
console.log('\n  Δ size (KB)   Δ count     count  what');
for (const r of rows.slice(0, top)) console.log(`${(r.ds / 1024).toFixed(1).padStart(13)} ${String(r.dc).padStart(9)} ${String(r.count).padStart(9)}  ${r.k}`);
if (chains > 0) {
  const r = retainers(after);
  const growers = rows.filter((x) => x.dc > 0 && !x.k.startsWith('(')).slice(0, 6);
  for (const g of growers) {
    console.log(`\n${g.k} (+${g.dc}): sample retainer chains`);
    const idx: number[] = [];
    for (let i = 0; i < after.nodes.length; i += after.nodeFields) if (label(after, i) === g.k) idx.push(i / after.nodeFields);
    // The newest objects are the most likely leaked ones: sample from the end.
    for (const n of idx.slice(-chains)) console.log(`  ${chain(after, r, n)}`);
  }
}
