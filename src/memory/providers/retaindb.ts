// RetainDB: hosted memory with hybrid search, profile and context overlays (REST API).
// RETAINDB_API_KEY (secret), RETAINDB_BASE_URL (https://api.retaindb.com), RETAINDB_PROJECT
// (default "default"); the non-secret two can also live in config.yaml under memory.retaindb.
import type { Message } from '../../llm/types.ts';
import { pick, requestJson } from '../http.ts';
import { cleanForCapture, int, num, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

interface Mem {
  id?: string;
  content?: string;
  score?: number;
}
const memories = (r: unknown): Mem[] => {
  const o = r as { memories?: Mem[]; results?: Mem[]; data?: Mem[] } | undefined;
  return o?.memories ?? o?.results ?? o?.data ?? [];
};

function create(e: ProviderEnv): ExternalMemoryProvider {
  const block = e.config.memory?.retaindb ?? {};
  const apiKey = pick(e.env.RETAINDB_API_KEY);
  const base = (pick(e.env.RETAINDB_BASE_URL, block.base_url) ?? 'https://api.retaindb.com').replace(/\/+$/, '');
  const project = pick(e.env.RETAINDB_PROJECT, block.project) ?? 'default';
  const userId = pick(e.env.RETAINDB_USER_ID, block.user_id) ?? 'hermes-user';
  let sessionId = '';
  const call = <T>(path: string, o: { body?: unknown; method?: string; query?: Record<string, string>; timeoutMs?: number } = {}) =>
    requestJson<T>('RetainDB', base, path, {
      ...o,
      headers: { authorization: `Bearer ${apiKey}`, 'x-sdk-runtime': 'hermes', ...(path.startsWith('/v1/memory') || path.startsWith('/v1/context') ? { 'x-api-key': apiKey ?? '' } : {}) },
      timeoutMs: o.timeoutMs ?? 8000,
    });
  const scoped = (extra: Record<string, unknown>) => ({ project, user_id: userId, session_id: sessionId, ...extra });
  const profile = () => call(`/v1/memory/profile/${encodeURIComponent(userId)}`, { query: { project, include_pending: 'true' } });
  const ingest = (messages: { role: string; content: string }[]) => call('/v1/memory/ingest/session', { body: scoped({ messages, write_mode: 'sync' }), timeoutMs: 15_000 });

  return {
    name: 'retaindb',
    isAvailable: () => !!apiKey,
    initialize(ctx) {
      sessionId = ctx.sessionId;
    },
    systemPromptBlock: () => `# RetainDB memory\nActive (project ${project}). Relevant memories are recalled before each turn; use retaindb_search, retaindb_profile, retaindb_context, retaindb_remember and retaindb_forget.`,
    toolSchemas: () => [
      toolSchema('retaindb_profile', "Get the user's stable profile: preferences, facts and patterns recalled from long-term memory."),
      toolSchema('retaindb_search', 'Semantic search across stored memories, ranked by relevance.', { query: str('What to search for.'), top_k: int('Max results (default 8, max 20).') }, ['query']),
      toolSchema('retaindb_context', 'A synthesized context block for the current task, from long-term memory.', { query: str('Current task or question.') }, ['query']),
      toolSchema(
        'retaindb_remember',
        'Persist an explicit fact, preference or decision to long-term memory.',
        { content: str('The fact to remember.'), memory_type: str('Category (default factual).', ['factual', 'preference', 'goal', 'instruction', 'event', 'opinion']), importance: num('Importance 0-1 (default 0.7).') },
        ['content'],
      ),
      toolSchema('retaindb_forget', 'Delete a specific memory by id.', { memory_id: str('Memory id to delete.') }, ['memory_id']),
    ],
    async handleToolCall(name, a) {
      if (name === 'retaindb_profile') return toolOk({ memories: memories(await profile()).map((m) => ({ id: m.id, content: m.content })) });
      if (name === 'retaindb_search') {
        if (!a.query) return toolErr('query is required');
        const r = memories(await call('/v1/memory/search', { body: scoped({ query: String(a.query), top_k: Math.min(20, Number(a.top_k) || 8), include_pending: true }) }));
        return toolOk({ results: r.map((m) => ({ id: m.id, content: m.content, score: m.score })), count: r.length });
      }
      if (name === 'retaindb_context') {
        const r = await call<{ context?: string }>('/v1/context/query', { body: scoped({ query: String(a.query ?? ''), include_memories: true, max_tokens: 1200 }) });
        return toolOk({ context: r?.context ?? '', memories: memories(r).map((m) => m.content) });
      }
      if (name === 'retaindb_remember') {
        if (!a.content) return toolErr('content is required');
        const r = await call<{ id?: string }>('/v1/memory', { body: scoped({ content: String(a.content), memory_type: a.memory_type ?? 'factual', importance: Number(a.importance ?? 0.7), write_mode: 'sync' }), timeoutMs: 5000 });
        return toolOk({ saved: true, id: r?.id ?? '' });
      }
      if (name === 'retaindb_forget') {
        await call(`/v1/memory/${encodeURIComponent(String(a.memory_id))}`, { method: 'DELETE', timeoutMs: 5000 });
        return toolOk({ deleted: true, memory_id: a.memory_id });
      }
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      const [p, q] = await Promise.all([profile().catch(() => null), call('/v1/context/query', { body: scoped({ query: query.slice(0, 1000), include_memories: true, max_tokens: 1200 }) })]);
      const seen = new Set<string>();
      const lines: string[] = [];
      for (const m of [...memories(p).slice(0, 5), ...memories(q).slice(0, 5)]) {
        const c = (m.content ?? '').replace(/\s+/g, ' ').trim().slice(0, 320);
        if (c && !seen.has(c.toLowerCase())) {
          seen.add(c.toLowerCase());
          lines.push(`- ${c}`);
        }
      }
      return lines.length ? `## RetainDB\n${lines.join('\n')}` : undefined;
    },
    syncTurn(user, assistant) {
      const msgs = [
        { role: 'user', content: cleanForCapture(user) },
        { role: 'assistant', content: cleanForCapture(assistant) },
      ].filter((m) => m.content);
      return msgs.length ? ingest(msgs).then(() => undefined) : undefined;
    },
    async onPreCompress(messages: readonly Message[]) {
      const recent = messages.filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string').slice(-10);
      if (recent.length) await ingest(recent.map((m) => ({ role: m.role, content: cleanForCapture(m.content as string) })));
    },
    async healthCheck() {
      const n = memories(await profile()).length;
      return `connected to ${base} (project ${project}, ${n} profile memor${n === 1 ? 'y' : 'ies'})`;
    },
    describe: () => ({ endpoint: base, project, user_id: userId, api_key: apiKey ? 'set (RETAINDB_API_KEY)' : 'not set' }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'retaindb',
  description: 'RetainDB: cloud memory API with hybrid search and profiles',
  fields: [
    { key: 'api_key', description: 'RetainDB API key', secret: true, required: true, env: 'RETAINDB_API_KEY' },
    { key: 'base_url', description: 'API base URL (blank for https://api.retaindb.com)' },
    { key: 'project', description: 'Project', default: 'default' },
  ],
  create,
  saveConfig(values, _home, config) {
    const mem = (config.memory ??= {} as never) as Record<string, unknown>;
    mem.retaindb = { ...((mem.retaindb as Record<string, unknown>) ?? {}), ...values };
  },
};
export default factory;
