// The auxiliary models a Session's parts use (compression, title_generation, background_review, …)
// and collectText, which runs one request to its end.
import { messageText } from '../agent/repair.ts';
import { describeError } from '../llm/index.ts';
import type { StreamFn } from '../llm/types.ts';
import type { AuxModel, StateHost } from './state-host.ts';

/** Runs a stream to its end and returns the text, or throws with the provider's error. */
export async function collectText(stream: StreamFn, req: Parameters<StreamFn>[0]): Promise<string> {
  const s = stream(req);
  for await (const _ of s) {
    /* drain */
  }
  const r = await s.result();
  if (r.stopReason === 'error' || r.stopReason === 'aborted') throw new Error(r.error ? describeError(r.error) : `the request ${r.stopReason === 'aborted' ? 'was aborted' : 'failed'}`);
  return messageText(r.message.content);
}

export class AuxModels {
  private readonly host: StateHost;
  private readonly auxClients = new Map<string, AuxModel | null>();

  constructor(host: StateHost) {
    this.host = host;
  }

  /**
   * The model for an auxiliary task (`auxiliary.<task>`: provider, model, base_url, api_key; `auto` or
   * `main` = the main model), from the session's resolver; cached per task and main model.
   */
  get(task: string): AuxModel | null {
    const o = this.host.options;
    if (o.auxStream) {
      const stream = o.auxStream(task);
      return stream ? { stream, model: o.config.auxiliary?.[task]?.model || this.host.llm.active.model } : null;
    }
    const key = `${task}|${this.host.llm.active.provider}|${this.host.llm.active.model}`;
    if (!this.auxClients.has(key)) {
      const a = this.host.services.auxiliary?.(task) ?? null;
      this.auxClients.set(key, a ? { stream: a.stream, model: a.model } : null);
    }
    return this.auxClients.get(key)!;
  }
}
