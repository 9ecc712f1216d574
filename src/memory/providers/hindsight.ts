// Hindsight: long-term memory with a knowledge graph (retain / recall / reflect) over its HTTP API,
// Hindsight Cloud or a local server. Config: $HERMES_HOME/hindsight/config.json (bank_id,
// recall_budget, memory_mode, auto_retain, auto_recall, retain_context, …); HINDSIGHT_API_KEY
// (secret), HINDSIGHT_API_URL, HINDSIGHT_TIMEOUT (seconds, default 60).
import { join } from 'node:path';
import { mergeJsonFile, pick, readJsonFile, requestJson } from '../http.ts';
import { cleanForCapture, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

const CLOUD = 'https://api.hindsight.vectorize.io';

function create(e: ProviderEnv): ExternalMemoryProvider {
  const cfg = readJsonFile(join(e.home, 'hindsight', 'config.json'));
  const apiKey = pick(e.env.HINDSIGHT_API_KEY, cfg.api_key);
  const base = (pick(e.env.HINDSIGHT_API_URL, cfg.api_url, cfg.base_url) ?? CLOUD).replace(/\/+$/, '');
  const bank = pick(e.env.HINDSIGHT_BANK_ID, cfg.bank_id) ?? 'hermes';
  const budget = pick(cfg.recall_budget) ?? 'mid';
  const mode = pick(cfg.memory_mode) ?? 'hybrid';
  const autoRetain = cfg.auto_retain !== false;
  const autoRecall = cfg.auto_recall !== false;
  const retainContext = pick(cfg.retain_context) ?? 'conversation between Hermes Agent and the User';
  const userPrefix = pick(cfg.retain_user_prefix) ?? 'User';
  const assistantPrefix = pick(cfg.retain_assistant_prefix) ?? 'Assistant';
  const tags = Array.isArray(cfg.retain_tags) ? (cfg.retain_tags as string[]) : undefined;
  const timeoutMs = (Number(e.env.HINDSIGHT_TIMEOUT) || 60) * 1000;
  let sessionId = '';
  const path = (p: string) => `/v1/default/banks/${encodeURIComponent(bank)}${p}`;
  const call = <T>(p: string, body: unknown, ms = timeoutMs) => requestJson<T>('Hindsight', base, path(p), { body, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, timeoutMs: ms });
  const retain = (content: string, extra: Record<string, unknown> = {}) =>
    call('/memories', { items: [{ content, context: retainContext, timestamp: new Date().toISOString(), document_id: sessionId || undefined, ...(tags ? { tags } : {}), ...extra }], async: cfg.retain_async !== false });
  const recall = async (query: string, maxTokens = 2048) => {
    const r = await call<{ results?: { text?: string; type?: string }[] }>('/memories/recall', { query, budget, max_tokens: maxTokens, ...(Array.isArray(cfg.recall_tags) ? { tags: cfg.recall_tags } : {}) }, Math.min(timeoutMs, 10_000));
    return (r?.results ?? []).filter((x) => x.text);
  };
  const tools = mode !== 'context';

  return {
    name: 'hindsight',
    isAvailable: () => !!apiKey || base !== CLOUD,
    initialize(ctx) {
      sessionId = ctx.sessionId;
    },
    systemPromptBlock: () => `# Hindsight memory\nActive (bank ${bank}).${tools ? ' Use hindsight_recall to search, hindsight_retain to store, hindsight_reflect to reason across memories.' : ''}`,
    toolSchemas: () =>
      tools
        ? [
            toolSchema('hindsight_retain', 'Store information in long-term memory (entities and relations are extracted).', { content: str('What to remember'), context: str('Optional context label') }, ['content']),
            toolSchema('hindsight_recall', 'Search long-term memory (semantic, keyword, graph and temporal strategies).', { query: str('What to recall') }, ['query']),
            toolSchema('hindsight_reflect', 'Reason across everything in memory to answer a question.', { query: str('The question') }, ['query']),
          ]
        : [],
    async handleToolCall(name, a) {
      if (name === 'hindsight_retain') {
        if (!a.content) return toolErr('content is required');
        await retain(String(a.content), a.context ? { context: String(a.context) } : {});
        return toolOk({ retained: true });
      }
      if (name === 'hindsight_recall') {
        const r = await recall(String(a.query ?? ''));
        return toolOk({ results: r.map((x) => ({ text: x.text, type: x.type })), count: r.length });
      }
      if (name === 'hindsight_reflect') {
        const r = await call<{ text?: string }>('/reflect', { query: String(a.query ?? ''), budget });
        return toolOk({ answer: r?.text ?? '' });
      }
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      if (!autoRecall || mode === 'tools') return undefined;
      const r = await recall(query.slice(0, 1000));
      return r.length ? `## Hindsight\n${r.slice(0, 12).map((x) => `- ${x.text}`).join('\n')}` : undefined;
    },
    syncTurn(user, assistant) {
      if (!autoRetain) return;
      return retain(`${userPrefix}: ${cleanForCapture(user)}\n${assistantPrefix}: ${cleanForCapture(assistant)}`).then(() => undefined);
    },
    onMemoryWrite(action, _t, content) {
      if (action === 'add' && content.trim()) void retain(content.trim()).catch(() => {});
    },
    async healthCheck() {
      const r = await recall('health check', 256);
      return `connected to ${base} (bank ${bank}, recall returned ${r.length} result${r.length === 1 ? '' : 's'})`;
    },
    describe: () => ({ endpoint: base, bank_id: bank, memory_mode: mode, recall_budget: budget, api_key: apiKey ? 'set (HINDSIGHT_API_KEY)' : 'not set' }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'hindsight',
  description: 'Hindsight: knowledge-graph memory with recall and reflect (cloud or local server)',
  fields: [
    { key: 'api_key', description: 'Hindsight API key (cloud)', secret: true, env: 'HINDSIGHT_API_KEY' },
    { key: 'api_url', description: 'Server URL (blank for Hindsight Cloud)' },
    { key: 'bank_id', description: 'Memory bank', default: 'hermes' },
  ],
  create,
  saveConfig(values, home) {
    mergeJsonFile(join(home, 'hindsight', 'config.json'), values);
  },
};
export default factory;
