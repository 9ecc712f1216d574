// In the esbuild bundle a dynamic `import('yaml')` resolves to a namespace without parse()/stringify()
// (the CJS interop shape), so every YAML read behind it fails only in the shipped CLI, never from the
// sources. Twice that shipped broken; the sources must import yaml statically.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts') || e.name.endsWith('.tsx')) yield p;
  }
}

test('no source file imports yaml dynamically', () => {
  const src = join(import.meta.dirname, '..', '..', 'src');
  const bad = [...tsFiles(src)].filter((f) => /import\(\s*['"]yaml['"]\s*\)/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(bad, [], 'use `import { parse } from \'yaml\'` (static) in these files');
});
