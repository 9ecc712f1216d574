// The two views of a Session besides its façade: `info` (read-only, for surfaces) and the parts host
// (what the Session's own parts — SessionState and its session-*.ts files, the plugin hooks, the
// loop runner — see of it: more than the façade shows, and only to them).
import type { AgentEvent } from '../agent/types.ts';
import type { LoopHost } from '../runners/loop.ts';
import type { Session } from './session.ts';
import type { PluginSessionHost } from './session-plugins.ts';
import type { SessionState } from './session-state.ts';
import type { SessionInfo, SessionOptions } from './session-types.ts';
import type { StateHost } from './state-host.ts';

export type PartsHost = StateHost & PluginSessionHost & LoopHost & { readonly state: SessionState };

export function sessionInfo(s: { readonly id: string }, o: SessionOptions): SessionInfo {
  return {
    get id() {
      return s.id;
    },
    home: o.home,
    get cwd() {
      return o.cwd;
    },
    env: o.env,
    platform: o.platform,
    source: o.source,
    store: o.store,
    get explicit() {
      return o.explicit;
    },
    interactive: o.interactive,
    depth: o.depth ?? 0,
    parentSessionId: o.parentSessionId,
  };
}

/** The parts host of a Session: its public members, plus the internals it lends (options, state, emit). */
export function partsHostFor(s: Session, inner: { options(): SessionOptions; state(): SessionState; emit(e: AgentEvent): void }): PartsHost {
  return {
    get id() {
      return s.id;
    },
    get options() {
      return inner.options();
    },
    get state() {
      return inner.state();
    },
    get warnings() {
      return s.warnings;
    },
    get services() {
      return s.services;
    },
    get history() {
      return s.history;
    },
    get system() {
      return s.system;
    },
    get tools() {
      return s.tools;
    },
    get llm() {
      return s.llm;
    },
    get persisted() {
      return s.persisted;
    },
    get writer() {
      return s.writer;
    },
    get runtime() {
      return s.runtime;
    },
    get prefs() {
      return s.prefs;
    },
    emit: (e) => inner.emit(e),
    flushAppends: () => s.flushAppends(),
    flushStore: () => s.flushStore(),
    persist: (w) => s.persist(w),
    adoptId: (id) => s.adoptId(id),
    newId: () => s.newId(),
    callTool: (name, args) => s.callTool(name, args),
    inject: (text) => s.inject(text),
    loadTool: (name) => s.loadTool(name),
    takeSteer: () => s.takeSteer(),
  };
}
