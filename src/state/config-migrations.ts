// Python Hermes's config format versions (`_config_version`, hermes_cli/config.py `migrate_config`),
// from 12 to 33: one row per version step, with Hermes's meaning. `hermes config migrate` runs the
// steps above the file's version (src/cli/config-cmd.ts) and writes their edits, comments kept;
// loading a file applies only the renames, in memory (`readLegacyNames`): old names are still read,
// as Hermes's doctor says of them, and the file is never rewritten unasked.
//
// Hermes's invariant is kept: a step writes only values that differ from the default, plus renames
// and removals of what the user wrote. Steps below 13 (tool progress and timezone from .env,
// ANTHROPIC_TOKEN, custom_providers → providers) are not run: this version reads both forms.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The version this schema is at (the default of `_config_version`). */
export const CONFIG_VERSION = 33;

/** Hermes's `_coerce_config_version`: a non-negative integer, anything else is 0 (legacy). */
export function coerceConfigVersion(v: unknown): number {
  if (typeof v === 'boolean') return 0;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.max(Math.trunc(n), 0) : 0;
}

/** What a step does to one file: config.yaml keys set (`undefined`: removed), .env names cleared, lines for the user. */
export interface MigrationEdits {
  config: [string[], unknown][];
  envCleared: string[];
  dirs: string[];
  notes: string[];
}

interface StepContext {
  home: string;
  /** The .env file's values (for the steps that read or clear it). */
  env: ReadonlyMap<string, string>;
}

/** A step works on a copy of the file's mapping and records what it changed. */
class Editor {
  readonly edits: MigrationEdits = { config: [], envCleared: [], dirs: [], notes: [] };
  readonly raw: Obj;
  constructor(raw: Obj) {
    this.raw = raw;
  }
  section(name: string): Obj | undefined {
    const v = this.raw[name];
    return isObj(v) ? v : undefined;
  }
  set(path: string[], value: unknown): void {
    let cur = this.raw;
    for (const k of path.slice(0, -1)) {
      if (!isObj(cur[k])) cur[k] = {};
      cur = cur[k] as Obj;
    }
    cur[path.at(-1)!] = value;
    this.edits.config.push([path, value]);
  }
  remove(path: string[]): void {
    let cur: unknown = this.raw;
    for (const k of path.slice(0, -1)) cur = isObj(cur) ? cur[k] : undefined;
    if (!isObj(cur) || !(path.at(-1)! in cur)) return;
    delete cur[path.at(-1)!];
    this.edits.config.push([path, undefined]);
    // A section left empty goes too (Hermes's save drops it).
    if (path.length === 2 && !Object.keys(cur).length) {
      delete this.raw[path[0]];
      this.edits.config.push([[path[0]], undefined]);
    }
  }
  /** A line for the user: `✓` a change made, `·` something to know (nothing changed). */
  note(text: string, info = false): void {
    this.edits.notes.push(`${info ? '·' : '✓'} ${text}`);
  }
}

interface MigrationStep {
  /** The version a file has after this step (Hermes runs it when `_config_version < version`). */
  version: number;
  /** Hermes's meaning, one line. */
  what: string;
  /** Old names read in memory on every load (a rename: no value changes meaning). */
  renames?: { from: string; to: string }[];
  run(ed: Editor, ctx: StepContext): void;
}

/** faster-whisper's model names (Hermes v14 keeps a flat stt.model for `local` only when it is one). */
const LOCAL_WHISPER = new Set(['tiny.en', 'tiny', 'base.en', 'base', 'small.en', 'small', 'medium.en', 'medium', 'large-v1', 'large-v2', 'large-v3', 'large', 'distil-large-v2', 'distil-medium.en', 'distil-small.en', 'distil-large-v3', 'distil-large-v3.5', 'large-v3-turbo', 'turbo']);

const nonEmpty = (v: unknown): string => (v === null || v === undefined ? '' : String(v).trim());

export const MIGRATION_STEPS: readonly MigrationStep[] = [
  {
    version: 13,
    what: 'LLM_MODEL and OPENAI_MODEL in .env are dead (config.yaml is the model\'s one source): cleared',
    run(ed, ctx) {
      for (const name of ['LLM_MODEL', 'OPENAI_MODEL'])
        if (ctx.env.get(name)) {
          ed.edits.envCleared.push(name);
          ed.note(`cleared ${name} in .env (no longer used: config.yaml is the source of truth)`);
        }
    },
  },
  {
    version: 14,
    what: 'a flat stt.model moves into its provider\'s section (stt.<provider>.model)',
    renames: [{ from: 'stt.model', to: 'stt.<provider>.model' }],
    run(ed) {
      const stt = ed.section('stt');
      if (!stt || !('model' in stt)) return;
      const model = stt.model;
      const provider = typeof stt.provider === 'string' && stt.provider ? stt.provider : 'local';
      ed.remove(['stt', 'model']);
      const local = provider === 'local' || provider === 'local_command';
      const target = local ? 'local' : provider;
      const own = stt[target];
      if (local && !LOCAL_WHISPER.has(String(model))) {
        ed.note(`removed stt.model ${JSON.stringify(model)} (not a local whisper model; stt.local.model applies)`);
        return;
      }
      if (isObj(own) && 'model' in own) {
        ed.note(`removed stt.model (stt.${target}.model is already set)`);
        return;
      }
      ed.set(['stt', target, 'model'], model);
      ed.note(`stt.model → stt.${target}.model`);
    },
  },
  {
    version: 15,
    what: 'display.interim_assistant_messages gates gateway interim messages (default true: nothing written)',
    run() {},
  },
  {
    version: 16,
    what: 'display.tool_progress_overrides → display.platforms.<platform>.tool_progress (the old key is kept)',
    renames: [{ from: 'display.tool_progress_overrides', to: 'display.platforms.<platform>.tool_progress' }],
    run(ed) {
      const display = ed.section('display');
      const old = display?.tool_progress_overrides;
      if (!display || !isObj(old) || !Object.keys(old).length) return;
      const platforms = isObj(display.platforms) ? display.platforms : {};
      for (const [plat, mode] of Object.entries(old)) {
        const p = platforms[plat];
        if (isObj(p) && 'tool_progress' in p) continue;
        ed.set(['display', 'platforms', plat, 'tool_progress'], mode);
      }
      ed.note(`display.tool_progress_overrides → display.platforms: ${Object.entries(old).map(([p, m]) => `${p}=${String(m)}`).join(', ')}`);
    },
  },
  {
    version: 17,
    what: 'compression.summary_model / summary_provider / summary_base_url → auxiliary.compression.model / provider / base_url',
    renames: [
      { from: 'compression.summary_model', to: 'auxiliary.compression.model' },
      { from: 'compression.summary_provider', to: 'auxiliary.compression.provider' },
      { from: 'compression.summary_base_url', to: 'auxiliary.compression.base_url' },
    ],
    run(ed) {
      const comp = ed.section('compression');
      if (!comp) return;
      const moved: string[] = [];
      let removed = false;
      for (const [from, to] of [['summary_model', 'model'], ['summary_provider', 'provider'], ['summary_base_url', 'base_url']] as const) {
        if (!(from in comp)) continue;
        const v = nonEmpty(comp[from]);
        ed.remove(['compression', from]);
        removed = true;
        if (!v || (to === 'provider' && v === 'auto')) continue;
        const aux = ed.section('auxiliary');
        const cur = isObj(aux?.compression) ? (aux.compression as Obj)[to] : undefined;
        if (cur && !(to === 'provider' && cur === 'auto')) continue;
        ed.set(['auxiliary', 'compression', to], v);
        moved.push(`${to}=${v}`);
      }
      if (moved.length) ed.note(`compression.summary_* → auxiliary.compression: ${moved.join(', ')}`);
      else if (removed) ed.note('removed unused compression.summary_* keys');
    },
  },
  {
    version: 21,
    what: 'plugins are opt-in (plugins.enabled); Hermes grandfathers the installed ones, here they are listed, not enabled',
    run(ed, ctx) {
      const plugins = ed.section('plugins');
      if (plugins && 'enabled' in plugins) return;
      const disabled = new Set(Array.isArray(plugins?.disabled) ? plugins.disabled.map(String) : []);
      const dir = join(ctx.home, 'plugins');
      const names: string[] = [];
      try {
        for (const d of readdirSync(dir, { withFileTypes: true })) {
          if (!d.isDirectory()) continue;
          const manifest = ['plugin.yaml', 'plugin.yml'].map((f) => join(dir, d.name, f)).find((f) => existsSync(f));
          if (!manifest) continue;
          let name = d.name;
          try {
            const m = parse(readFileSync(manifest, 'utf8')) as unknown;
            if (isObj(m) && typeof m.name === 'string' && m.name) name = m.name;
          } catch {
            /* the folder's name */
          }
          if (!disabled.has(name)) names.push(name);
        }
      } catch {
        return;
      }
      for (const n of names.sort()) ed.note(`plugin ${n} is not enabled (plugins are opt-in): \`hermes plugins enable ${n}\` turns it on`, true);
    },
  },
  {
    version: 23,
    what: 'the curator\'s settings (defaults: nothing written) and its logs folder logs/curator/',
    run(ed, ctx) {
      const dir = join(ctx.home, 'logs', 'curator');
      if (!existsSync(dir)) ed.edits.dirs.push(dir);
    },
  },
  {
    version: 25,
    what: 'model_catalog.ttl_hours: the old default 24 becomes 1 (hourly picker refresh); a value you chose is kept',
    run(ed) {
      if (ed.section('model_catalog')?.ttl_hours !== 24) return;
      ed.set(['model_catalog', 'ttl_hours'], 1);
      ed.note('model_catalog.ttl_hours 24 → 1');
    },
  },
  {
    version: 29,
    what: 'memory/skills write_mode (on|off|approve) → write_approval (true only for approve)',
    renames: [
      { from: 'memory.write_mode', to: 'memory.write_approval' },
      { from: 'skills.write_mode', to: 'skills.write_approval' },
    ],
    run(ed) {
      for (const sub of ['memory', 'skills']) {
        const s = ed.section(sub);
        if (!s || !('write_mode' in s)) continue;
        const old = s.write_mode;
        const approval = (typeof old === 'string' ? old.trim().toLowerCase() : old) === 'approve';
        ed.remove([sub, 'write_mode']);
        // false is the default, which Hermes never writes.
        if (approval) ed.set([sub, 'write_approval'], true);
        ed.note(`${sub}.write_mode → ${sub}.write_approval: ${approval}${approval ? '' : ' (the default)'}`);
      }
    },
  },
  {
    version: 30,
    what: 'curator.consolidate is opt-in (default false: nothing written)',
    run() {},
  },
  {
    version: 31,
    what: 'agent.verify_on_stop turned off once when unset or "auto" (an explicit true/false is kept)',
    run(ed) {
      const cur = ed.section('agent')?.verify_on_stop;
      if (cur !== undefined && cur !== null && !(typeof cur === 'string' && cur.trim().toLowerCase() === 'auto')) return;
      ed.set(['agent', 'verify_on_stop'], false);
      ed.note('agent.verify_on_stop: false (verify-on-stop turned off)');
    },
  },
  {
    version: 32,
    what: 'agent.verify_on_stop: a literal true written before v32 was the old default: turned off',
    run(ed) {
      if (ed.section('agent')?.verify_on_stop !== true) return;
      ed.set(['agent', 'verify_on_stop'], false);
      ed.note('agent.verify_on_stop: true → false (the old default, written as a literal)');
    },
  },
  {
    version: 33,
    what: 'delegation.max_async_children is folded into max_concurrent_children (the larger one), which caps background delegations too',
    renames: [{ from: 'delegation.max_async_children', to: 'delegation.max_concurrent_children' }],
    run(ed) {
      const d = ed.section('delegation');
      if (!d || !('max_async_children' in d)) return;
      const old = Math.trunc(Number(d.max_async_children));
      ed.remove(['delegation', 'max_async_children']);
      const cur = Math.trunc(Number(d.max_concurrent_children ?? 3));
      if (Number.isFinite(old) && old > 3 && old > (Number.isFinite(cur) ? cur : 3)) {
        ed.set(['delegation', 'max_concurrent_children'], old);
        ed.note(`delegation.max_async_children ${old} → delegation.max_concurrent_children`);
      } else ed.note('removed delegation.max_async_children (max_concurrent_children caps background delegations too)');
    },
  },
];

/** The steps a file at `from` needs, run on a copy of `raw`: the edits, in order, and the result. */
export function planMigration(raw: Obj, from: number, ctx: StepContext): { result: Obj; edits: MigrationEdits; steps: number[] } {
  const ed = new Editor(structuredClone(raw));
  const steps: number[] = [];
  for (const step of MIGRATION_STEPS) {
    if (from >= step.version) continue;
    const before = ed.edits.config.length + ed.edits.envCleared.length + ed.edits.dirs.length + ed.edits.notes.length;
    step.run(ed, ctx);
    if (ed.edits.config.length + ed.edits.envCleared.length + ed.edits.dirs.length + ed.edits.notes.length > before) steps.push(step.version);
  }
  return { result: ed.raw, edits: ed.edits, steps };
}

/** The rename steps (14, 16, 17, 29, 33) applied in memory: old names are read with their new meaning. */
export function readLegacyNames(user: Obj): Obj {
  if (!legacyKeys(user).length) return user;
  const ed = new Editor(structuredClone(user));
  const ctx: StepContext = { home: '', env: new Map() };
  for (const step of MIGRATION_STEPS) if (step.renames) step.run(ed, ctx);
  const display = ed.section('display');
  if (display && 'tool_progress_overrides' in display) delete display.tool_progress_overrides;
  return ed.raw;
}

/** Old names a file still uses: `hermes config check` lists them with their new names. */
export function legacyKeys(raw: Obj): { key: string; to: string; version: number }[] {
  const out: { key: string; to: string; version: number }[] = [];
  for (const step of MIGRATION_STEPS)
    for (const r of step.renames ?? []) {
      const [sec, key] = r.from.split('.');
      const s = raw[sec];
      if (isObj(s) && key in s) out.push({ key: r.from, to: r.to, version: step.version });
    }
  return out;
}
