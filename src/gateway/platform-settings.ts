// The pure readers every platform's settings start from: a platform's block of config.yaml and
// truthy flags. No imports, so the platform catalog (and send_message through it) can use them
// without loading the gateway's config module, which registers every adapter.
type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const truthy = (v: unknown) => v === true || (typeof v === 'string' && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()));

/** A platform's settings: `platforms.<p>` merged with `platforms.<p>.extra` (extra wins) and a top-level `<p>:` block. */
export function platformSettings(config: Obj, platform: string): Obj {
  const top = isObj(config[platform]) ? (config[platform] as Obj) : {};
  const platforms = isObj(config.platforms) ? (config.platforms as Obj) : {};
  const block = isObj(platforms[platform]) ? (platforms[platform] as Obj) : {};
  const extra = isObj(block.extra) ? (block.extra as Obj) : {};
  return { ...top, ...block, ...extra };
}
