// Mem0 (platform or a self-hosted Mem0 server): server-side fact extraction and semantic search.
// Talks to Mem0's documented REST API directly: the `mem0ai` npm package declares an optional peer
// on @anthropic-ai/sdk@^0.40, which conflicts with the Anthropic SDK this project ships, so npm
// refuses to install it without --legacy-peer-deps. Config: $HERMES_HOME/mem0.json; MEM0_API_KEY
// (secret, .env), MEM0_HOST for a self-hosted server.
import { join } from 'node:path';
import type { Message } from '../../llm/types.ts';
import { mergeJsonFile, pick, readJsonFile, requestJson } from '../http.ts';
import { cleanForCapture, int, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

const PLATFORM = 'https://api.mem0.ai';

interface Mem0Item {
  id?: string;
  memory?: string;
  score?: number;
}

function items(r: unknown): Mem0Item[] {
  if (Array.isArray(r)) return r as Mem0Item[];
  const o = r as { results?: unknown; memories?: unknown };
  return Array.isArray(o?.results) ? (o.results as Mem0Item[]) : Array.isArray(o?.memories) ? (o.memories as Mem0Item[]) : [];
}

function create(e: ProviderEnv): ExternalMemoryProvider {
  const cfg = readJsonFile(join(e.home, 'mem0.json'));
  const apiKey = pick(e.env.MEM0_API_KEY, cfg.api_key);
  const host = pick(cfg.host, e.env.MEM0_HOST);
  const selfHosted = !!host;
  const base = (host ?? PLATFORM).replace(/\/+$/, '');
  const userId = pick(cfg.user_id, e.env.MEM0_USER_ID) ?? 'hermes-user';
  const agentId = pick(cfg.agent_id, e.env.MEM0_AGENT_ID) ?? 'hermes';
  const rerank = cfg.rerank === true;
  const headers = (): Record<string, string> => (apiKey ? (selfHosted ? { 'X-API-Key': apiKey } : { Authorization: `Token ${apiKey}` }) : {});
  const call = <T>(path: string, body?: unknown, method?: string) => requestJson<T>('Mem0', base, path, { body, method, headers: headers(), timeoutMs: 10_000 });

  const search = async (query: string, limit: number): Promise<Mem0Item[]> =>
    items(
      selfHosted
        ? await call('/search', { query, user_id: userId, agent_id: agentId, limit })
        : await call('/v2/memories/search/', { query, filters: { user_id: userId }, top_k: limit, rerank }),
    );
  const add = (messages: { role: string; content: string }[], infer = true) =>
    call(selfHosted ? '/memories' : '/v1/memories/', { messages, user_id: userId, agent_id: agentId, infer, ...(selfHosted ? {} : { version: 'v2' }) });

  return {
    name: 'mem0',
    isAvailable: () => !!apiKey || selfHosted,
    systemPromptBlock: () =>
      `# Mem0 memory\nActive (user ${userId}). Relevant memories are recalled before each turn; use mem0_search to look further, mem0_add to store a fact verbatim, mem0_update / mem0_delete by id.`,
    toolSchemas: () => [
      toolSchema('mem0_search', 'Search long-term memory (Mem0) by meaning.', { query: str('What to look for'), limit: int('Maximum results (default 5)') }, ['query']),
      toolSchema('mem0_add', 'Store a fact in long-term memory verbatim.', { content: str('The fact to remember') }, ['content']),
      toolSchema('mem0_update', 'Replace the text of a stored memory.', { memory_id: str('The memory id'), content: str('The new text') }, ['memory_id', 'content']),
      toolSchema('mem0_delete', 'Delete a stored memory by id.', { memory_id: str('The memory id') }, ['memory_id']),
    ],
    async handleToolCall(name, a) {
      if (name === 'mem0_search') {
        if (!a.query) return toolErr('query is required');
        const r = await search(String(a.query), Math.min(20, Number(a.limit) || 5));
        return toolOk({ results: r.map((m) => ({ id: m.id, memory: m.memory, score: m.score })), count: r.length });
      }
      if (name === 'mem0_add') {
        if (!a.content) return toolErr('content is required');
        await add([{ role: 'user', content: String(a.content) }], false);
        return toolOk({ saved: true });
      }
      if (name === 'mem0_update') {
        await call(selfHosted ? `/memories/${encodeURIComponent(String(a.memory_id))}` : `/v1/memories/${encodeURIComponent(String(a.memory_id))}/`, { text: String(a.content) }, 'PUT');
        return toolOk({ updated: true, memory_id: a.memory_id });
      }
      if (name === 'mem0_delete') {
        await call(selfHosted ? `/memories/${encodeURIComponent(String(a.memory_id))}` : `/v1/memories/${encodeURIComponent(String(a.memory_id))}/`, undefined, 'DELETE');
        return toolOk({ deleted: true, memory_id: a.memory_id });
      }
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      const r = await search(query.slice(0, 500), 5);
      const lines = r.filter((m) => m.memory).map((m) => `- ${m.memory}`);
      return lines.length ? `## Mem0\n${lines.join('\n')}` : undefined;
    },
    syncTurn(user, assistant) {
      const msgs = [
        { role: 'user', content: cleanForCapture(user) },
        { role: 'assistant', content: cleanForCapture(assistant) },
      ].filter((m) => m.content);
      return msgs.length ? add(msgs).then(() => undefined) : undefined;
    },
    async onPreCompress(messages: readonly Message[]) {
      const recent = messages
        .filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content)
        .slice(-10)
        .map((m) => ({ role: m.role, content: cleanForCapture(m.content as string) }));
      if (recent.length) await add(recent);
    },
    onMemoryWrite(action, _target, content) {
      if (action === 'add' && content.trim()) void add([{ role: 'user', content }], false).catch(() => {});
    },
    async healthCheck() {
      const r = await search('health check', 1);
      return `connected to ${selfHosted ? base : 'Mem0 Platform'} (user ${userId}, ${r.length ? 'memories found' : 'no memories yet'})`;
    },
    describe: () => ({ mode: selfHosted ? 'self-hosted' : 'platform', endpoint: base, user_id: userId, agent_id: agentId, api_key: apiKey ? 'set (MEM0_API_KEY)' : 'not set' }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'mem0',
  description: 'Mem0: server-side fact extraction, semantic search (platform or self-hosted server)',
  fields: [
    { key: 'api_key', description: 'Mem0 API key', secret: true, env: 'MEM0_API_KEY' },
    { key: 'host', description: 'Self-hosted Mem0 server URL (blank for Mem0 Platform)' },
    { key: 'user_id', description: 'User id', default: 'hermes-user' },
    { key: 'agent_id', description: 'Agent id', default: 'hermes' },
  ],
  create,
  saveConfig(values, home) {
    mergeJsonFile(join(home, 'mem0.json'), values);
  },
};
export default factory;
