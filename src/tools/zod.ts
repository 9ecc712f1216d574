// zod, loaded on first use rather than at start-up: tool schemas are written as functions of `z`,
// their JSON Schemas are precomputed into the bundle, and zod itself loads only when a tool call's
// arguments are first validated (or when running from the sources).
import { createRequire } from 'node:module';
import type * as ZodModule from 'zod';

export type Zod = typeof ZodModule.z;

let zod: Zod | undefined;

export function getZod(): Zod {
  return (zod ??= (createRequire(import.meta.url)('zod') as typeof ZodModule).z);
}
