// Prints the JSON Schemas of the built-in tools (run by scripts/build.mjs, which inlines them into
// the bundle so start-up does not load zod).
import { builtinRegistry } from '../src/tools/builtin.ts';
import { toJsonSchema, zodSchemaOf } from '../src/tools/registry.ts';

const out: Record<string, unknown> = {};
for (const def of builtinRegistry().all()) out[def.name] = toJsonSchema(zodSchemaOf(def));
process.stdout.write(JSON.stringify(out));
