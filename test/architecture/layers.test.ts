// The layers of src/ (docs/ARCHITECTURE.md): the folder import graph has no cycle, nothing below the
// surfaces imports a surface (not even a type), every import follows the declared layer order
// (scripts/layers.mjs LAYERS / PEERS, with its named exceptions, none stale), and no hand-written
// source file is over 800 lines. A fixture tree shows each check failing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error a plain .mjs script without type declarations
import { analyse, specifiersOf } from '../../scripts/layers.mjs';

interface Edge {
  from: string;
  to: string;
  file: string;
  spec: string;
  kind: 'static' | 'type' | 'dynamic';
}
interface Report {
  edges: Edge[];
  graph: Map<string, Set<string>>;
  cycles: string[][];
  violations: (Edge & { why: string })[];
  excepted: (Edge & { why: string })[];
  stale: { from: string[]; to: string }[];
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'layers.mjs');
const tmp: string[] = [];
after(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

/** A throwaway tree: { 'src/state/a.ts': '…' } */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'hermes-layers-'));
  tmp.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const run = (root: string) => spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });

describe('the folder graph of src/', () => {
  const report = analyse(join(ROOT, 'src')) as Report;

  it('has no cycle', () => {
    const lines = report.cycles.map((c) => `${c.join(' ')}:\n${report.edges.filter((e) => c.includes(e.from) && c.includes(e.to)).map((e) => `  src/${e.file} -> ${e.spec} (${e.kind})`).join('\n')}`);
    assert.deepEqual(lines, [], `folder cycles (break them: move the small module to the layer it belongs to, or inject a port):\n${lines.join('\n')}`);
  });

  it('imports no surface from the core and follows the layer order', () => {
    const lines = report.violations.map((v) => `src/${v.file} imports ${v.spec} (${v.kind}): ${v.why}`);
    assert.deepEqual(lines, [], `imports against docs/ARCHITECTURE.md's layers:\n${lines.join('\n')}`);
  });

  it('keeps only exceptions still in use', () => {
    assert.deepEqual(report.stale, [], 'an exception in scripts/layers.mjs matches nothing any more: delete it');
    // Each remaining exception is a type-only or launcher import named by file, and the surfaces are
    // never imported from below even through one.
    for (const e of report.excepted) assert.ok(!(['cli', 'gateway', 'acp', 'dashboard', 'tui'].includes(e.to) && !['cli', 'gateway', 'acp', 'dashboard', 'tui'].includes(e.from)), `src/${e.file}`);
  });

  it('sees the imports that exist (sanity: the scan finds the Session, lazy loads and type imports)', () => {
    const has = (from: string, to: string, kind: string) => report.edges.some((e) => e.from === from && e.to === to && e.kind === kind);
    assert.ok(has('session', 'tools', 'static'), 'session -> tools (static)');
    assert.ok(has('cli', 'gateway', 'dynamic'), 'cli -> gateway (await import)');
    assert.ok(has('session', 'tools', 'type'), 'session -> tools (import type)');
    assert.ok(report.graph.size >= 20, `${report.graph.size} folders`);
  });

  it('the script says so and exits 0', () => {
    const r = run(ROOT);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /no cycle, no layer violation/);
  });
});

describe('the check fails where it should (fixture tree)', () => {
  const root = tree({
    // a cycle: state <-> tools (and state -> tools is against the order)
    'src/state/a.ts': "import { b } from '../tools/b.ts';\nexport const a = () => b;\n",
    'src/tools/b.ts': "import { a } from '../state/a.ts';\nexport const b = () => a;\n",
    // the core naming a surface's type, and loading one lazily
    'src/tools/c.ts': "import type { InboundMessage } from '../gateway/types.ts';\nexport type M = InboundMessage;\n",
    'src/session/d.ts': "export async function f() {\n  return (await import('../cli/x.ts')).x;\n}\n",
    // imports that are no imports: a comment, a string, a template, a regex
    'src/llm/e.ts': "// import { y } from '../cli/y.ts';\nconst s = \"import('../cli/z.ts')\";\nconst t = `from '../gateway/w.ts'`;\nconst r = /import\\('..\\/tui\\/v.ts'\\)/;\nexport { s, t, r };\n",
    'src/gateway/types.ts': 'export interface InboundMessage { text: string }\n',
    'src/cli/x.ts': 'export const x = 1;\n',
    // a folder on no layer
    'src/newthing/n.ts': "import { a } from '../state/a.ts';\nexport const n = a;\n",
  });
  const report = analyse(join(root, 'src')) as Report;
  const why = (file: string) => report.violations.filter((v) => v.file === file).map((v) => v.why);

  it('reports the cycle', () => {
    assert.deepEqual(report.cycles, [['state', 'tools']]);
  });

  it('reports core -> surface imports, type-only and dynamic ones too', () => {
    assert.deepEqual(why('tools/c.ts'), ['core folder tools/ imports surface gateway/']);
    assert.deepEqual(why('session/d.ts'), ['core folder session/ imports surface cli/']);
    assert.match(why('state/a.ts')[0], /state\/ \(state\) imports tools\/ \(tools\), a higher layer/);
    assert.match(why('newthing/n.ts')[0], /newthing\/ is on no layer/);
  });

  it('does not count comments, strings, templates or regexes', () => {
    assert.deepEqual(report.edges.filter((e) => e.file === 'llm/e.ts'), []);
  });

  it('the script exits 1 and names each problem', () => {
    const r = run(root);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /cycle of 2 folders: state tools/);
    assert.match(r.stdout, /layer: core folder tools\/ imports surface gateway\/: src\/tools\/c\.ts imports \.\.\/gateway\/types\.ts \(type\)/);
  });
});

describe('the import scanner', () => {
  const kinds = (text: string) => (specifiersOf(text) as { spec: string; kind: string }[]).map((s) => `${s.kind} ${s.spec}`);

  it('tells static, type-only and dynamic imports apart', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from './b.ts';",
      "import { type C, type D } from './c.ts';",
      "import { type E, e } from './e.ts';",
      "import './side.ts';",
      "export * from './f.ts';",
      "export type { G } from './g.ts';",
      "export { h } from './h.ts';",
      'export { local };',
      "const m = import.meta.url;",
      "type T = typeof import('./t.ts');",
      "let u: import('./u.ts').U;",
      "const v = await import('./v.ts');",
      "import('./w.ts').then((x) => x);",
      "const lazy = () => import('./lazy.ts');",
      "import { z } from 'node:fs';",
    ].join('\n');
    assert.deepEqual(kinds(text), [
      'static ./a.ts',
      'type ./b.ts',
      'type ./c.ts',
      'static ./e.ts',
      'static ./side.ts',
      'static ./f.ts',
      'type ./g.ts',
      'static ./h.ts',
      'type ./t.ts',
      'type ./u.ts',
      'dynamic ./v.ts',
      'dynamic ./w.ts',
      'dynamic ./lazy.ts',
    ]);
  });

  it('reads multi-line imports and template literals with expressions', () => {
    assert.deepEqual(kinds("import {\n  a,\n  b,\n} from '../x/a.ts';\nconst s = `${1 + 2} import '../y.ts'`;\nimport { c } from '../z/c.ts';"), ['static ../x/a.ts', 'static ../z/c.ts']);
  });
});

describe('file sizes', () => {
  it('no hand-written source file is over 800 lines (split by concern before it passes)', () => {
    const over: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (name === 'node_modules') continue;
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(ts|tsx|mjs)$/.test(name)) {
          const text = readFileSync(p, 'utf8');
          if (/^\/\/ GENERATED CODE/.test(text)) continue;
          const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
          if (lines > 800) over.push(`${p.slice(ROOT.length + 1)} (${lines})`);
        }
      }
    };
    walk(join(ROOT, 'src'));
    walk(join(ROOT, 'web', 'src'));
    assert.deepEqual(over, []);
  });
});
