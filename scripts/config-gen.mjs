// Precomputes what start-up needs from the one config schema (src/state/config-zod.ts), so that no
// process loads zod to read config.yaml: src/state/config-generated.ts (the defaults and the JSON
// Schema) and docs/config-keys.md (every setting, its type and default). Run after changing the schema:
//   node scripts/config-gen.mjs
// test/state/config-schema.test.ts fails while either file is stale.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { hermesConfigSchema } from '../src/state/config-zod.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The JSON Schema without what start-up never reads (section defaults are their keys' defaults). */
function trim(s) {
  if (Array.isArray(s)) return s.map(trim);
  if (!s || typeof s !== 'object') return s;
  if (Array.isArray(s.type)) {
    // `type: [number, null]` (a nullable setting) as a union, as every other union is written.
    const { type, ...rest } = s;
    const note = {};
    const constraint = {};
    for (const [k, v] of Object.entries(rest)) (['default', 'options', 'optionsFrom', 'message', 'description'].includes(k) ? note : constraint)[k] = v;
    return trim({ ...note, anyOf: type.map((t) => (t === 'null' ? { type: 'null' } : { ...constraint, type: t })) });
  }
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$schema' || k === 'propertyNames') continue;
    if (k === 'default' && s.type === 'object' && s.properties) continue;
    out[k] = k === 'default' || k === 'enum' || k === 'const' ? v : trim(v);
  }
  return out;
}

export function generated() {
  const schema = hermesConfigSchema(z);
  const defaults = schema.parse({});
  const json = trim(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
  const ts = `// GENERATED CODE by scripts/config-gen.mjs from src/state/config-zod.ts: do not edit (run \`node scripts/config-gen.mjs\`).
// The defaults config.yaml is merged over, and the JSON Schema of config.yaml, as plain data.
import type { JsonSchema } from './config-schema.ts';
import type { HermesConfig } from './config-zod.ts';

export const CONFIG_DEFAULTS: HermesConfig = ${JSON.stringify(defaults, null, 2)};

export const CONFIG_JSON_SCHEMA: JsonSchema = ${JSON.stringify(json, null, 2)};
`;
  return { ts, md: keysMarkdown(json) };
}

const fmt = (v) => (v === undefined ? '' : `\`${JSON.stringify(v)}\``);

function typeOf(s) {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if ('const' in s) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' \\| ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'values'}`;
  if (s.type === 'object') return 'mapping';
  return s.type ?? 'any';
}

/** The leaves the same way src/state/config-schema.ts configLeaves walks them. */
function leaves(s, prefix = '', out = []) {
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    if (k.startsWith('_')) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    const o = sub.type === 'object' ? sub : sub.anyOf?.find((b) => b.type === 'object');
    if (o?.properties && Object.keys(o.properties).length) leaves(o, key, out);
    else out.push({ key, s: sub });
  }
  return out;
}

function keysMarkdown(json) {
  const all = leaves(json);
  const rows = all.filter((l) => !l.s.unsupported).map((l) => `| \`${l.key}\` | ${typeOf(l.s)}${l.s.options ? ` (usually ${l.s.options.map((o) => JSON.stringify(o)).join(', ')})` : ''} | ${fmt(l.s.default)} |`);
  const hermes = all.filter((l) => l.s.unsupported).map((l) => `\`${l.key}\``);
  return `# config.yaml keys

Generated from the config schema (\`src/state/config-zod.ts\`) by \`node scripts/config-gen.mjs\`; a test
fails when this list and the schema differ. How to set, check and migrate settings: [config.md](config.md).

| key | type | default |
|---|---|---|
${rows.join('\n')}

Keys Python Hermes reads that this version accepts with any value (so a Hermes config.yaml checks
clean) but does not act on (config check lists the ones your file sets as "not supported here"): ${hermes.join(', ')}.
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ts, md } = generated();
  writeFileSync(join(root, 'src', 'state', 'config-generated.ts'), ts);
  writeFileSync(join(root, 'docs', 'config-keys.md'), md);
  process.stdout.write('wrote src/state/config-generated.ts and docs/config-keys.md\n');
}
