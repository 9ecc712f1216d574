// esbuild plugin: inside the LLM SDKs (openai, @anthropic-ai/sdk), the globals Headers, FormData and
// Response are scripts/sdk-web-globals.ts's, so a request through nodeFetch never loads Node's
// bundled undici (and http2 with it); see that file. Used by scripts/build.mjs and by
// test/llm/sdk-fetch.test.ts, which runs the real SDK suites against SDKs bundled this way.
import { transform } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHIM = join(dirname(fileURLToPath(import.meta.url)), 'sdk-web-globals.ts');
const GLOBALS = ['Headers', 'FormData', 'Response'];
const define = Object.fromEntries(GLOBALS.flatMap((g) => [[g, `__hermesWeb.${g}`], [`globalThis.${g}`, `__hermesWeb.${g}`]]));
const MENTIONS = new RegExp(`\\b(${GLOBALS.join('|')})\\b`);

// Two module-level reads in openai would still load undici whenever the SDK is imported; they are
// rewritten below. Exact text: an SDK update that changes it fails the build here, to be looked at again.
const PATCHES = [
  {
    // `Response.prototype` (token exchange for workload identity) is read in the one function that uses it.
    file: /[\\/]openai[\\/]auth[\\/]workload-identity-auth\.mjs$/,
    edits: [
      [
        'const NATIVE_RESPONSE_PROTOTYPE = Response.prototype;\nconst READ_NATIVE_RESPONSE_BODY = NATIVE_RESPONSE_PROTOTYPE.arrayBuffer;\n',
        'let NATIVE_RESPONSE_PROTOTYPE;\nlet READ_NATIVE_RESPONSE_BODY;\n',
      ],
      [
        'async function parseOAuthTokenResponse(response) {\n',
        'async function parseOAuthTokenResponse(response) {\n    NATIVE_RESPONSE_PROTOTYPE ??= Response.prototype;\n    READ_NATIVE_RESPONSE_BODY ??= NATIVE_RESPONSE_PROTOTYPE.arrayBuffer;\n',
      ],
    ],
    // Every use of the two names, so that none reads them before they are set.
    uses: { NATIVE_RESPONSE_PROTOTYPE: 4, READ_NATIVE_RESPONSE_BODY: 3 },
  },
  {
    // The stream helpers' memory accounting trusts the prototypes of some globals, looked up by name
    // (which define cannot see): Headers is the one above instead of undici's. A real Headers inside
    // a buffered stream event is then accounted for as an ordinary object.
    file: /[\\/]openai[\\/]lib[\\/]EventStream\.mjs$/,
    edits: [
      ["for (const name of [\n    'SharedArrayBuffer',", "rememberTrustedIntrinsic(Headers);\nfor (const name of [\n    'SharedArrayBuffer',"],
      ["    'File',\n    'Headers',\n]) {\n    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);", "    'File',\n]) {\n    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);"],
    ],
    uses: {},
  },
];

function patch(path, src) {
  const p = PATCHES.find((x) => x.file.test(path));
  if (!p) return src;
  let out = src;
  for (const [from, to] of p.edits) {
    if (out.split(from).length !== 2) throw new Error(`build: ${path} changed (expected once: ${JSON.stringify(from.slice(0, 70))}); update scripts/sdk-web-globals.mjs`);
    out = out.replace(from, to);
  }
  for (const [name, n] of Object.entries(p.uses)) {
    const found = out.split(new RegExp(`\\b${name}\\b`)).length - 1;
    if (found !== n) throw new Error(`build: ${path} uses ${name} ${found} times (expected ${n}); update scripts/sdk-web-globals.mjs`);
  }
  return out;
}

export const sdkWebGlobals = {
  name: 'sdk-web-globals',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](openai|@anthropic-ai[\\/]sdk)[\\/].*\.mjs$/ }, async (args) => {
      let src = await readFile(args.path, 'utf8');
      if (!MENTIONS.test(src)) return undefined;
      src = patch(args.path, src);
      // esbuild's define replaces only references to the globals, never a local binding or a property.
      const out = await transform(`import * as __hermesWeb from ${JSON.stringify(SHIM)};\n${src}`, { loader: 'js', format: 'esm', define, sourcefile: args.path, sourcemap: 'inline', logLevel: 'silent' });
      return { contents: out.code, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
