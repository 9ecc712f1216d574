// A conversation's lane (its running turn, waiting messages and open requests) and its warm
// session runtime.
import type { AgentRequest } from '../agent/types.ts';
import type { Session } from '../session/session.ts';
import type { InboundMessage, PlatformAdapter, SessionSource } from './types.ts';

export interface OpenRequest {
  id: string;
  short: string;
  kind: AgentRequest['kind'];
  request: AgentRequest;
  /** The message that shows it (edited once it is answered). */
  messageId?: string;
}

export interface Lane {
  key: string;
  adapter: PlatformAdapter;
  source: SessionSource;
  running: boolean;
  /** Messages waiting for the running turn to end. */
  waiting: InboundMessage[];
  /** Open approval / clarify requests of the running turn, oldest first. */
  open: OpenRequest[];
  /** The adapter data of the last real message (background notices answer with it). */
  lastMeta?: Record<string, unknown>;
}

export class Warm {
  readonly session: Session;
  readonly key: string;
  lane: Lane | null = null;
  private readonly hasProcesses: () => boolean;
  constructor(session: Session, key: string, hasProcesses: () => boolean) {
    this.session = session;
    this.key = key;
    this.hasProcesses = hasProcesses;
  }
  get busy(): boolean {
    return this.session.busy || !!this.lane?.running || this.hasProcesses();
  }
}

