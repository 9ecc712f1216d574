// The `complete` port plugins get (src/plugins/state.ts PluginPorts; lent through
// src/mcp/plugin-call.ts): one model call with the user's own provider, model and credentials
// (whatever a session would use), outside any conversation.
import type { PluginHost } from '../plugins/host.ts';
import type { CompleteRequest, CompleteResult } from '../plugins/llm.ts';
import type { PluginManifest } from '../plugins/manifest.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { createClientFor } from './session-client.ts';
import { collectText } from './session-aux.ts';

export async function completeForPlugin(host: PluginHost, m: PluginManifest, r: CompleteRequest): Promise<CompleteResult> {
  const { llm } = createClientFor(host.config as HermesConfig, host.env, {}, host.home);
  const model = llm.active.model;
  host.log('INFO', `${m.key}: llm.complete${r.purpose ? ` (${r.purpose})` : ''} on ${llm.active.provider}/${model}`);
  const text = await collectText((req) => llm.stream(req), { model, system: r.system, messages: r.messages, tools: [], maxTokens: r.maxTokens, temperature: r.temperature });
  return { text, model, provider: llm.active.provider, purpose: r.purpose };
}
