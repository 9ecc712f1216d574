// Bundles the CLI into dist/ with esbuild. The start-up path (CLI parsing, config, the LLM SDKs)
// is bundled and code-split so each command loads only what it uses; packages with native parts or
// that resolve files at run time stay external and load from node_modules.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sdkWebGlobals } from './sdk-web-globals.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A package and everything it depends on, by name (node_modules is flat enough for these). */
function withDependencies(names) {
  const out = new Set();
  const visit = (name) => {
    if (out.has(name)) return;
    const pkg = join(root, 'node_modules', name, 'package.json');
    if (!existsSync(pkg)) return;
    out.add(name);
    const p = JSON.parse(readFileSync(pkg, 'utf8'));
    for (const d of Object.keys(p.dependencies ?? {})) visit(d);
  };
  for (const n of names) visit(n);
  return out;
}

// The TUI's packages (Ink, React and what they use) are many small modules: bundled, they load in a
// fraction of the time. They sit in chunks only `hermes --tui` imports.
const TUI_PACKAGES = withDependencies(['ink', 'react']);
// zod stays external: it loads lazily (src/tools/zod.ts), and an eager import shows up in the start-up test.
const BUNDLED = new Set(['openai', '@anthropic-ai/sdk', 'yaml', 'commander', ...TUI_PACKAGES]);

const externalize = {
  name: 'externalize-deps',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // A package's own subpath imports (`#ansi-styles` in chalk) resolve inside that package.
      if (args.path.startsWith('#')) return undefined;
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

// yoga-layout (Ink's layout engine) is WebAssembly embedded as a base64 data: URL. Its Emscripten
// loader fetches that URL whenever a global fetch exists, which in Node loads undici and
// percent-decodes ~100 kB before the TUI's first frame; decoding it directly is what the loader does
// without fetch. The build fails if a yoga-layout update changes the code this relies on.
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?Promise.resolve()';
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes(YOGA_FETCH)) throw new Error(`build: yoga-layout's wasm loader changed (${args.path}); update yogaWithoutFetch in scripts/build.mjs`);
      return { contents: src.replace(YOGA_FETCH, 'function ya(){return true?Promise.resolve()'), loader: 'js' };
    });
  },
};

// commander imports `node:process` and `node:util` as ES modules: Node then builds each one's module
// namespace from every property, which evaluates their lazy ones (loading worker_threads, parseArgs,
// the report module and more: ~25 M instructions on every command). The same objects, taken as values.
// The build fails if a commander update changes these lines.
const COMMANDER_IMPORTS = {
  'command.js': [
    ["import process from 'node:process';\n", 'const process = globalThis.process;\n'],
    ["import { stripVTControlCharacters } from 'node:util';\n", "const { stripVTControlCharacters } = globalThis.process.getBuiltinModule('node:util');\n"],
  ],
  'help.js': [["import { stripVTControlCharacters } from 'node:util';\n", "const { stripVTControlCharacters } = globalThis.process.getBuiltinModule('node:util');\n"]],
};
const commanderBuiltins = {
  name: 'commander-builtins',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/](command|help)\.js$/ }, (args) => {
      let src = readFileSync(args.path, 'utf8');
      for (const [from, to] of COMMANDER_IMPORTS[args.path.slice(args.path.lastIndexOf('/') + 1)]) {
        if (src.split(from).length !== 2) throw new Error(`build: commander's ${args.path} changed (${from.trim()}); update commanderBuiltins in scripts/build.mjs`);
        src = src.replace(from, to);
      }
      return { contents: src, loader: 'js' };
    });
  },
};

// Node >= 22 runs the TypeScript sources; under an older node (npm itself may run on one) use the
// Node 24 the project provisions.
const node24 = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : join(root, 'node_modules', '.bin', 'node');
if (!existsSync(node24)) throw new Error('build: Node >= 22 is needed; run `npm ci` to provision it.');
const data = spawnSync(node24, [join(root, 'scripts', 'build-data.ts')], { cwd: root, encoding: 'utf8' });
if (data.status !== 0) throw new Error(`build: computing build-time data failed:\n${data.stderr}`);
const { toolSchemas, bundledSkillsSignature } = JSON.parse(data.stdout);

// `require` for bundled CommonJS code and esbuild's helpers (dropped below from chunks without it).
const BANNER = "const require = globalThis.process.getBuiltinModule('node:module').createRequire(import.meta.url);";
// Built into a folder of its own, then moved into dist/ (see installBuild at the end), so a hermes
// that is running — a gateway, a test run — never finds half a bundle or a chunk it needs gone.
const out = join(root, `.dist-build-${process.pid}`);
rmSync(out, { recursive: true, force: true });
process.on('exit', () => rmSync(out, { recursive: true, force: true }));
const result = await build({
  entryPoints: { hermes: join(root, 'src/cli/main.ts') },
  outdir: out,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [externalize, yogaWithoutFetch, sdkWebGlobals, commanderBuiltins],
  // Ink imports the React devtools only when DEV=true; the package is not installed. Display widths
  // for Ink's layout are Hermes's own (src/tui/string-width.ts).
  alias: { 'react-devtools-core': join(root, 'scripts/stubs/react-devtools-core.mjs'), 'string-width': join(root, 'src/tui/string-width.ts') },
  metafile: true,
  define: {
    // React's production build (nothing else bundled reads NODE_ENV); the dev builds stay out.
    'process.env.NODE_ENV': '"production"',
    // A string (parsed where it is used): an object define becomes a module every chunk initialises.
    __HERMES_TOOL_SCHEMAS__: JSON.stringify(JSON.stringify(toolSchemas)),
    __HERMES_BUNDLED_SKILLS_SIGNATURE__: JSON.stringify(bundledSkillsSignature),
  },
  banner: { js: BANNER },
});

// The bundle's imports of Node's built-in modules become `process.getBuiltinModule()` values: an
// ES-module import of a built-in builds its namespace from every property, evaluating the lazy ones
// (node:fs's `promises` loads fs/promises and readline, node:crypto's webcrypto…): ~20 M instructions
// of the one-shot. Built-ins' exports are fixed, so values are what the bindings held; each statement
// keeps its line (source maps) and its place (esbuild puts a module's imports before its code).
const BUILTIN_IMPORT = /^import\s+(?:([\w$]+)\s*,\s*)?(?:\{([^}]*)\}|\*\s+as\s+([\w$]+)|([\w$]+))?\s*from\s*"(node:[\w/]+)";/gm;
function builtinValues(_all, dflt, named, ns, only, spec) {
  const src = `globalThis.process.getBuiltinModule(${JSON.stringify(spec)})`;
  const out = [];
  for (const name of [dflt, ns, only]) if (name) out.push(`const ${name} = ${src};`);
  if (named !== undefined) {
    const pairs = [];
    for (const part of named.split(',').map((p) => p.trim()).filter(Boolean)) {
      const [from, to = from] = part.split(/\s+as\s+/);
      if (from === 'default') out.push(`const ${to} = ${src};`);
      else pairs.push(from === to ? from : `${from}: ${to}`);
    }
    if (pairs.length) out.push(`const { ${pairs.join(', ')} } = ${src};`);
  }
  return out.join(' ') + '\n'.repeat(_all.split('\n').length - 1);
}

// Chunks in pure ASCII: one non-ASCII character anywhere in a file makes V8 hold the whole source as
// a two-byte string, which Node's compile cache then encodes to UTF-8 to checksum on every start (the
// 1 MB openai chunk has "—" and "👋" in comments: ~40 M instructions of the one-shot, 8%). esbuild
// escapes strings and identifiers but keeps comments as written; those are escaped here (line by line,
// so code columns and the source maps stay as they were). Anything else fails the build.
// (Without the u flag the pattern matches UTF-16 code units: an emoji becomes its two surrogate escapes.)
const escapeNonAscii = (s) => s.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const COMMENT_LINE = /^\s*(\*|\/\/|\/\*)/;
function asciiOnly(file, code) {
  if (!/[^\x00-\x7f]/.test(code)) return code;
  const lines = code.split('\n');
  for (const [i, line] of lines.entries()) {
    if (!/[^\x00-\x7f]/.test(line)) continue;
    if (!COMMENT_LINE.test(line)) {
      const at = line.search(/[^\x00-\x7f]/);
      throw new Error(`${file}:${i + 1}: a non-ASCII character outside a comment (${JSON.stringify(line.slice(Math.max(0, at - 30), at + 10))}): write it as a \\u escape in the source (see scripts/build.mjs, asciiOnly)`);
    }
    lines[i] = escapeNonAscii(line);
  }
  return lines.join('\n');
}
// The banner's `require` only where the chunk uses it: each one costs an import.meta object and a
// createRequire() when the chunk loads. (Emptied, not removed: lines stay for the source maps.)
for (const file of Object.keys(result.metafile.outputs)) {
  if (!file.endsWith('.mjs')) continue;
  const path = join(root, file);
  const name = file.slice(file.lastIndexOf('/') + 1);
  const code = readFileSync(path, 'utf8');
  let rewritten = asciiOnly(name, code.replace(BUILTIN_IMPORT, builtinValues));
  if (rewritten.startsWith(BANNER) && !/\brequire\b/.test(rewritten.slice(BANNER.length))) rewritten = rewritten.slice(BANNER.length);
  if (rewritten !== code) writeFileSync(path, rewritten);
}

// The dashboard's web app (web/, React): bundled into dist/web/, served by `hermes dashboard`.
// Pages load on first visit (code splitting); all CSS goes into one file.
const webSrc = join(root, 'web');
if (existsSync(join(webSrc, 'src', 'main.tsx'))) {
  const webOut = join(out, 'web');
  await build({
    entryPoints: { app: join(webSrc, 'src', 'main.tsx') },
    outdir: join(webOut, 'assets'),
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff2': 'file', '.svg': 'file' },
  });
  copyFileSync(join(webSrc, 'index.html'), join(webOut, 'index.html'));
}

// Which output files carry the TUI's packages, for the start-up test (they must not load on the
// one-shot path or for `hermes --version`).
const tuiFiles = Object.entries(result.metafile.outputs)
  .filter(([, o]) => Object.keys(o.inputs).some((i) => [...TUI_PACKAGES].some((p) => i.includes(`node_modules/${p}/`))))
  .map(([file]) => file.slice(file.lastIndexOf('/') + 1));
writeFileSync(join(out, 'tui-files.json'), JSON.stringify(tuiFiles, null, 2));

/**
 * Moves the new build into dist/. Chunks are named by their content, so a rebuild of the same
 * sources writes the same files; each file is renamed into place (atomic), chunks first and the entry
 * points last. Chunks of the previous build stay (a process started from it may still load them
 * lazily); older ones are removed. `manifest` lists what each build wrote.
 */
function installBuild(from, to) {
  const list = (dir) => {
    const files = [];
    const walk = (d, rel) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(join(d, e.name), r);
        else files.push(r);
      }
    };
    if (existsSync(dir)) walk(dir, '');
    return files;
  };
  const MANIFEST = '.build-manifest.json';
  const fresh = list(from);
  let previous = [];
  try {
    previous = JSON.parse(readFileSync(join(to, MANIFEST), 'utf8')).files ?? [];
  } catch {
    /* the first build, or a dist/ from before manifests: its leftovers go below */
  }
  const isChunk = (f) => f.includes('chunks/');
  for (const f of [...fresh.filter(isChunk), ...fresh.filter((f) => !isChunk(f))]) {
    mkdirSync(dirname(join(to, f)), { recursive: true });
    renameSync(join(from, f), join(to, f));
  }
  rmSync(from, { recursive: true, force: true });
  const keep = new Set([...fresh, ...previous, MANIFEST]);
  for (const f of list(to)) if (!keep.has(f)) rmSync(join(to, f), { force: true });
  writeFileSync(join(to, MANIFEST), JSON.stringify({ files: fresh }));
}
installBuild(out, join(root, 'dist'));
