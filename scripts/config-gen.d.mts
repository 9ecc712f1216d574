/** What scripts/config-gen.mjs writes: src/state/config-generated.ts and docs/config-keys.md. */
export function generated(): { ts: string; md: string };
