// Bundles the CLI into dist/ with esbuild. The start-up path (CLI parsing, config, the LLM SDKs)
// is bundled and code-split so each command loads only what it uses; packages with native parts or
// that resolve files at run time stay external and load from node_modules.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLED = new Set(['openai', '@anthropic-ai/sdk', 'yaml', 'zod', 'commander']);

const externalize = {
  name: 'externalize-deps',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { hermes: join(root, 'src/cli/main.ts') },
  outdir: join(root, 'dist'),
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
  plugins: [externalize],
  banner: { js: "import { createRequire as __hermesCreateRequire } from 'node:module'; const require = __hermesCreateRequire(import.meta.url);" },
});
