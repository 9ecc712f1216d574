// Data computed at build time and inlined into the bundle (run by scripts/build.mjs), so start-up
// does not recompute it: the built-in tools' JSON Schemas (no zod at start-up) and the signature of
// the bundled skills (no directory walk at start-up).
import { join } from 'node:path';
import { packageRoot } from '../src/state/paths.ts';
import { bundledSkillsSignature } from '../src/state/skills.ts';
import { builtinRegistry } from '../src/tools/builtin.ts';
import { toJsonSchema, zodSchemaOf } from '../src/tools/registry.ts';

const toolSchemas: Record<string, unknown> = {};
for (const def of builtinRegistry().all()) toolSchemas[def.name] = toJsonSchema(zodSchemaOf(def));
process.stdout.write(JSON.stringify({ toolSchemas, bundledSkillsSignature: bundledSkillsSignature(join(packageRoot(), 'skills')) }));
