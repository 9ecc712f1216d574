// A Session's own settings: its copy of config.yaml's values and its display/input preferences.
// Surfaces share one config object among their sessions (the gateway's chats, ACP's sessions); a
// slash command that changes a value "for this session" (/reasoning, /approvals, /personality,
// /tools disable, /timestamps …) sets it here, copy-on-write per section, and the shared object is
// never written.
import { carryConfigMarks } from '../state/config.ts';
import type { HermesConfig } from '../state/defaults.ts';
import type { SessionPrefs } from './session-types.ts';

/** The display preferences config.yaml can set (display.timestamps, …), for SessionPrefs. */
function displayPrefs(d: Record<string, unknown>, agent: Record<string, unknown> = {}): Partial<SessionPrefs> {
  const fast = String(agent.service_tier ?? agent.fast_mode ?? 'normal');
  return {
    timestamps: d.timestamps === true,
    statusBar: d.statusbar === true || d.status_bar === true,
    focus: d.focus === true,
    footer: d.runtime_footer === true,
    fast: (['normal', 'fast', 'auto', 'cold'].includes(fast) ? fast : 'normal') as SessionPrefs['fast'],
  };
}

/** The preferences a session starts with, from config.yaml's display and agent sections. */
export function prefsFrom(config: HermesConfig): SessionPrefs {
  const d = config.display ?? {};
  return {
    toolProgress: (['off', 'new', 'all', 'verbose'].includes(d.tool_progress) ? d.tool_progress : 'all') as SessionPrefs['toolProgress'],
    showReasoning: d.show_reasoning !== false,
    busyInputMode: (['interrupt', 'queue', 'steer'].includes(d.busy_input_mode) ? d.busy_input_mode : 'interrupt') as SessionPrefs['busyInputMode'],
    ...displayPrefs(d as Record<string, unknown>, config.agent as Record<string, unknown>),
  };
}

export class SessionSettings {
  readonly #config: HermesConfig;
  /** Display and input preferences (/verbose, /reasoning show, /busy, /timestamps …). */
  readonly prefs: SessionPrefs;

  constructor(shared: HermesConfig, prefs: SessionPrefs) {
    // A shallow copy: sections are shared with the surface's config until this session sets one.
    this.#config = { ...shared };
    // (An emptied config.yaml stays known as one: provider resolution refuses to guess for it.)
    carryConfigMarks(shared, this.#config);
    this.prefs = prefs;
  }

  /** The session's config: the surface's, with what was set for this session. Read it, never write it. */
  get config(): HermesConfig {
    return this.#config;
  }

  /**
   * Sets a value for this session only: `section.key` (agent.reasoning_effort, approvals.mode,
   * display.personality …) or a top-level key. The sections on the way are copied, not written.
   */
  set(path: string, value: unknown): void {
    const keys = path.split('.');
    if (!keys.length || keys.some((k) => !k)) throw new Error(`not a settings path: "${path}"`);
    let node = this.#config as unknown as Record<string, unknown>;
    for (const k of keys.slice(0, -1)) {
      const inner = node[k];
      const copy = inner && typeof inner === 'object' && !Array.isArray(inner) ? { ...(inner as Record<string, unknown>) } : {};
      node[k] = copy;
      node = copy;
    }
    node[keys[keys.length - 1]] = value;
  }
}
