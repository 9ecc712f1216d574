// The folder import graph of src/: which top-level folder imports which, its cycles (Tarjan's
// strongly connected components) and the imports that break the declared layer order
// (docs/ARCHITECTURE.md, "Layers and what they may import"). test/architecture/layers.test.ts
// runs it on every test run; run it by hand to see the graph:
//
//   node scripts/layers.mjs [--root DIR] [--edges] [--exceptions] [--no-exceptions] [--json]
//
// --edges prints the folder graph, --exceptions the named exceptions in use, --no-exceptions checks
// as if there were none (what is left to fix), --root checks another tree (the test's fixture).
//
// What counts as an edge: every relative import of a file in src/<a>/ that lands in src/<b>/ (a != b):
// static `import`/`export … from`, `import type` (a type-only import is still knowledge of the other
// folder: a core type that names a surface type cannot be reused without that surface, and the next
// change turns it into a value import), `typeof import('…')` types, and dynamic `await import('…')`
// (lazy loading changes when a module loads, not what depends on what). Files directly under src/
// (none today) form the folder "." . Bare imports (packages, node:) are not edges.
//
// The strings inside comments, string literals, template literals and regular expressions are not
// imports (a small scanner below skips them; TypeScript 7 has no stable JavaScript parser API).
//
// Exit status: 0 when there is no cycle, no layer violation and no stale exception, 1 otherwise
// (with --json, always 0).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The layers, lowest first. A folder may import every layer strictly below its own, and folders of
// its own layer only where PEERS says so (folders on one layer are otherwise independent). Keep in
// step with docs/ARCHITECTURE.md.
export const LAYERS = [
  { name: 'foundation', folders: ['llm', 'policy', 'i18n'] },
  { name: 'state', folders: ['state', 'agent', 'auth', 'sandbox'] },
  { name: 'hooks', folders: ['plugins'] },
  { name: 'domains', folders: ['kanban', 'media', 'memory'] },
  { name: 'tools', folders: ['tools'] },
  { name: 'session', folders: ['session', 'runners'] },
  { name: 'services', folders: ['mcp', 'cron'] },
  { name: 'commands', folders: ['commands'] },
  { name: 'surfaces', folders: ['cli', 'gateway', 'acp', 'dashboard', 'tui'] },
];

// Same-layer imports that are allowed (from -> to). Everything else on one layer is a violation,
// so a new edge inside a layer is a decision made here, not an accident.
export const PEERS = {
  auth: ['state'],
  session: ['runners'],
  cron: ['mcp'],
  cli: ['gateway', 'acp', 'dashboard'],
  acp: ['gateway'],
  dashboard: ['gateway'],
  tui: ['cli'],
};

// Surfaces: what nothing below them may import, not even a type.
export const SURFACES = LAYERS.at(-1).folders;

const SOURCE = /\.(ts|tsx|mts|cts)$/;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

// A small scanner, enough for import syntax: skips comments and the insides of strings, template
// literals and regular expressions, and returns identifiers, string literals and punctuation.
// (TypeScript 7, the repo's compiler, has no stable JavaScript parser API.)
const KEYWORDS_BEFORE_EXPR = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'await', 'yield', 'instanceof']);
export function tokens(text) {
  const out = [];
  const braces = []; // for each open `{`: true when it opened a template's `${`
  let i = 0;
  const n = text.length;
  const regexAllowed = () => {
    const t = out[out.length - 1];
    if (!t) return true;
    if (t.type === 'str' || t.type === 'num') return false;
    if (t.type === 'id') return KEYWORDS_BEFORE_EXPR.has(t.value);
    return !(t.value === ')' || t.value === ']' || t.value === '}');
  };
  const template = () => {
    // i is just past a backtick or a template's closing `}`; read to the closing backtick or `${`.
    while (i < n) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        out.push({ type: 'str', value: null });
        return;
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2;
        braces.push(true);
        out.push({ type: 'punct', value: '(' });
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < n && text[j] !== c && text[j] !== '\n') {
        if (text[j] === '\\') {
          value += text[j + 1];
          j += 2;
        } else value += text[j++];
      }
      i = j + 1;
      out.push({ type: 'str', value });
    } else if (c === '`') {
      i++;
      template();
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let cls = false;
      while (j < n && text[j] !== '\n') {
        const d = text[j];
        if (d === '\\') j++;
        else if (d === '[') cls = true;
        else if (d === ']') cls = false;
        else if (d === '/' && !cls) break;
        j++;
      }
      i = j + 1;
      while (i < n && /[a-z]/i.test(text[i])) i++;
      out.push({ type: 'str', value: null });
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w$]/.test(text[j])) j++;
      out.push({ type: 'id', value: text.slice(i, j) });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w.]/.test(text[j])) j++;
      out.push({ type: 'num', value: text.slice(i, j) });
      i = j;
    } else if (c === '{') {
      braces.push(false);
      out.push({ type: 'punct', value: c });
      i++;
    } else if (c === '}') {
      i++;
      if (braces.pop()) {
        out.push({ type: 'punct', value: ')' });
        template();
      } else out.push({ type: 'punct', value: c });
    } else if (/\s/.test(c)) i++;
    else {
      out.push({ type: 'punct', value: c });
      i++;
    }
  }
  return out;
}

/** Relative module specifiers of one file, each with its kind: 'static', 'type' or 'dynamic'. */
export function specifiersOf(text) {
  const t = tokens(text);
  const found = [];
  const is = (k, v) => t[k] && t[k].value === v && t[k].type !== 'str';
  const strAt = (k) => (t[k] && t[k].type === 'str' && typeof t[k].value === 'string' ? t[k].value : null);
  // From k, the string after the `from` that ends an import/export clause (null if none before `;`).
  const fromClause = (k) => {
    let depth = 0;
    for (; k < t.length; k++) {
      if (t[k].type === 'punct') {
        if (t[k].value === '{') depth++;
        else if (t[k].value === '}') depth--;
        else if (t[k].value === ';' && depth === 0) return null;
      } else if (depth === 0 && t[k].type === 'id' && t[k].value === 'from') return { spec: strAt(k + 1), end: k + 1 };
      else if (depth === 0 && t[k].type === 'id' && (t[k].value === 'import' || t[k].value === 'export') && k > 0) return null;
    }
    return null;
  };
  // Whether every name in the braces from k (at `{`) is marked `type`.
  const allTyped = (k) => {
    let names = 0;
    let typed = 0;
    let expectName = true;
    for (k++; k < t.length && !is(k, '}'); k++) {
      if (expectName && t[k].type === 'id') {
        names++;
        if (t[k].value === 'type' && t[k + 1] && t[k + 1].type === 'id' && t[k + 1].value !== 'as') typed++;
        expectName = false;
      } else if (is(k, ',')) expectName = true;
    }
    return names > 0 && names === typed;
  };
  for (let k = 0; k < t.length; k++) {
    if (t[k].type !== 'id') continue;
    if (is(k - 1, '.')) continue;
    if (t[k].value === 'import') {
      if (is(k + 1, '.')) continue; // import.meta
      if (is(k + 1, '(')) {
        const spec = strAt(k + 2);
        // `typeof import('x')` and `import('x').Name` in a type position are types; `await import('x')`,
        // `import('x').then(…)` and `() => import('x')` load the module.
        const prev = t[k - 1] && t[k - 1].type === 'id' ? t[k - 1].value : '';
        const after = t[k + 3] && t[k + 3].value === ')' && is(k + 4, '.') && t[k + 5] && t[k + 5].type === 'id' ? t[k + 5].value : '';
        const typePos = prev === 'typeof' || (prev !== 'await' && after !== '' && !['then', 'catch', 'finally'].includes(after));
        if (spec !== null) found.push({ spec, kind: typePos ? 'type' : 'dynamic' });
        continue;
      }
      const side = strAt(k + 1);
      if (side !== null) {
        found.push({ spec: side, kind: 'static' });
        continue;
      }
      const typeOnly = t[k + 1] && t[k + 1].value === 'type' && t[k + 2] && (t[k + 2].type === 'id' ? t[k + 2].value !== 'from' : is(k + 2, '{') || is(k + 2, '*'));
      const clause = fromClause(k + 1);
      if (clause && clause.spec !== null) {
        found.push({ spec: clause.spec, kind: typeOnly || (is(k + 1, '{') && allTyped(k + 1)) ? 'type' : 'static' });
        k = clause.end;
      }
    } else if (t[k].value === 'export') {
      const typeOnly = t[k + 1] && t[k + 1].value === 'type' && (is(k + 2, '{') || is(k + 2, '*'));
      const head = typeOnly ? k + 2 : k + 1;
      if (!(is(head, '{') || is(head, '*'))) continue;
      const clause = fromClause(head);
      if (clause && clause.spec !== null) {
        found.push({ spec: clause.spec, kind: typeOnly || (is(head, '{') && allTyped(head)) ? 'type' : 'static' });
        k = clause.end;
      }
    }
  }
  return found.filter((f) => f.spec.startsWith('.'));
}

const folderOf = (srcDir, file) => {
  const rel = relative(srcDir, file);
  if (rel.startsWith('..')) return null;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : '.';
};

/** Every cross-folder import under `srcDir`: { from, to, file, spec, kind }. */
export function importEdges(srcDir) {
  const edges = [];
  for (const file of walk(srcDir)) {
    const from = folderOf(srcDir, file);
    for (const { spec, kind } of specifiersOf(readFileSync(file, 'utf8'))) {
      const to = folderOf(srcDir, resolve(dirname(file), spec));
      if (to === null || to === from) continue;
      const target = relative(join(srcDir, to), resolve(dirname(file), spec)).split(sep).join('/');
      edges.push({ from, to, target, file: relative(srcDir, file).split(sep).join('/'), spec, kind });
    }
  }
  return edges;
}

/** Tarjan's strongly connected components of a graph given as Map<node, Set<node>>. */
export function tarjan(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const out = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      out.push(comp.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return out;
}

const layerOf = (folder) => LAYERS.findIndex((l) => l.folders.includes(folder));

/**
 * Imports that break the order today, each named by file and kind, with why and what removes it
 * (docs/ARCHITECTURE.md, "Next steps"). They are left out of the cycle check too. An exception that
 * no longer matches any import is reported, so a fixed one must be deleted here.
 */
export const EXCEPTIONS = [
  {
    from: ['cli/repl.ts'],
    to: 'tui/',
    kinds: ['dynamic'],
    why: 'the interactive CLI launches the TUI (`--tui`), which reuses the REPL pieces in cli/repl/; next: those pieces move to a terminal kit below both',
  },
];

const exceptionOf = (e) => EXCEPTIONS.find((x) => x.from.includes(e.file) && `${e.to}/${e.target}`.startsWith(x.to) && x.kinds.includes(e.kind));

/** Why an edge from -> to breaks the layer order, or null when it is allowed. */
export function violation(from, to) {
  if (!SURFACES.includes(from) && SURFACES.includes(to)) return `core folder ${from}/ imports surface ${to}/`;
  const a = layerOf(from);
  const b = layerOf(to);
  if (a < 0) return `${from}/ is on no layer (add it to LAYERS in scripts/layers.mjs and to docs/ARCHITECTURE.md)`;
  if (b < 0) return `${to}/ is on no layer (add it to LAYERS in scripts/layers.mjs and to docs/ARCHITECTURE.md)`;
  if (b > a) return `${from}/ (${LAYERS[a].name}) imports ${to}/ (${LAYERS[b].name}), a higher layer`;
  if (b === a && !(PEERS[from] ?? []).includes(to)) return `${from}/ imports ${to}/ on its own layer (${LAYERS[a].name}) without a PEERS entry`;
  return null;
}

/**
 * The whole report for a src/ tree: the folder graph (exceptions left out), its cycles, the imports
 * that break the layer order, the exceptions in use and the ones nothing matches any more.
 */
export function analyse(srcDir, o = { exceptions: true }) {
  const edges = importEdges(srcDir);
  const graph = new Map();
  for (const f of readdirSync(srcDir)) if (statSync(join(srcDir, f)).isDirectory()) graph.set(f, new Set());
  const excepted = [];
  const violations = [];
  for (const e of edges) {
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    if (!graph.has(e.to)) graph.set(e.to, new Set());
    const x = o.exceptions ? exceptionOf(e) : undefined;
    if (x) {
      excepted.push({ ...e, why: x.why });
      continue;
    }
    graph.get(e.from).add(e.to);
    const why = violation(e.from, e.to);
    if (why) violations.push({ ...e, why });
  }
  const cycles = tarjan(graph).filter((c) => c.length > 1 || graph.get(c[0])?.has(c[0]));
  const stale = o.exceptions ? EXCEPTIONS.filter((x) => !excepted.some((e) => exceptionOf(e) === x)) : [];
  return { edges, graph, cycles, violations, excepted, stale };
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at >= 0 ? resolve(args[at + 1]) : join(dirname(fileURLToPath(import.meta.url)), '..');
  const r = analyse(join(root, 'src'), { exceptions: !args.includes('--no-exceptions') });
  if (args.includes('--json')) {
    const { graph, edges, ...rest } = r;
    console.log(JSON.stringify({ ...rest, graph: Object.fromEntries([...graph].map(([k, v]) => [k, [...v].sort()])) }, null, 2));
    return;
  }
  if (args.includes('--edges')) {
    for (const [from, tos] of [...r.graph].sort()) console.log(`${from} -> ${[...tos].sort().join(' ')}`);
  }
  for (const c of r.cycles) {
    console.log(`cycle of ${c.length} folders: ${c.join(' ')}`);
    const inside = new Set(c);
    for (const e of r.edges) if (inside.has(e.from) && inside.has(e.to)) console.log(`  ${e.from} -> ${e.to}  ${e.file} (${e.spec}, ${e.kind})`);
  }
  for (const v of r.violations) console.log(`layer: ${v.why}: src/${v.file} imports ${v.spec} (${v.kind})`);
  for (const x of r.stale) console.log(`stale exception (nothing imports this way any more; delete it from EXCEPTIONS): ${x.from.join(', ')} -> ${x.to}`);
  if (args.includes('--exceptions')) for (const e of r.excepted) console.log(`exception: src/${e.file} imports ${e.spec} (${e.kind}): ${e.why}`);
  if (!r.cycles.length && !r.violations.length && !r.stale.length) console.log(`layers: ${r.graph.size} folders, ${r.edges.length} cross-folder imports (${r.excepted.length} named exceptions), no cycle, no layer violation`);
  else process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
