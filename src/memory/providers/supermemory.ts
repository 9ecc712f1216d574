// Supermemory: profile recall, semantic search and explicit memory tools through the official SDK
// (`supermemory`, loaded on first use), plus the session-end conversation ingest (/v4/conversations).
// Config: $HERMES_HOME/supermemory.json (base_url, container_tag, auto_recall, auto_capture, …);
// SUPERMEMORY_API_KEY (secret), SUPERMEMORY_BASE_URL and SUPERMEMORY_CONTAINER_TAG.
import { join } from 'node:path';
import type { Message } from '../../llm/types.ts';
import { mergeJsonFile, pick, readJsonFile, requestJson } from '../http.ts';
import { cleanForCapture, int, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

type Sdk = import('supermemory').Supermemory;
interface Hit {
  id?: string;
  memory?: string;
  similarity?: number;
  updatedAt?: string;
}

const sanitizeTag = (t: string) => t.replace(/[^a-zA-Z0-9_]/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '') || 'hermes';
const bool = (v: unknown, d: boolean) => (typeof v === 'boolean' ? v : typeof v === 'string' ? !['false', '0', 'no', 'off'].includes(v.toLowerCase()) : d);

function create(e: ProviderEnv): ExternalMemoryProvider {
  const cfg = readJsonFile(join(e.home, 'supermemory.json'));
  const apiKey = pick(e.env.SUPERMEMORY_API_KEY);
  const baseUrl = (pick(cfg.base_url, e.env.SUPERMEMORY_BASE_URL) ?? 'https://api.supermemory.ai').replace(/\/+$/, '');
  const tag = sanitizeTag((pick(e.env.SUPERMEMORY_CONTAINER_TAG, cfg.container_tag) ?? 'hermes').replace('{identity}', 'default'));
  const autoRecall = bool(cfg.auto_recall, true);
  const autoCapture = bool(cfg.auto_capture, true);
  const maxResults = Math.max(1, Math.min(20, Number(cfg.max_recall_results) || 10));
  const profileEvery = Math.max(1, Number(cfg.profile_frequency) || 50);
  const timeoutMs = Math.max(500, Math.min(15_000, (Number(cfg.api_timeout) || 5) * 1000));
  let sdk: Promise<Sdk> | null = null;
  let turns = 0;
  let sessionId = '';
  const client = () =>
    (sdk ??= import('supermemory').then((m) => new m.Supermemory({ apiKey: apiKey ?? '', baseURL: baseUrl, timeout: timeoutMs, maxRetries: 0, defaultHeaders: { 'x-sm-source': 'hermes' } })));

  const search = async (q: string, limit: number): Promise<Hit[]> => {
    const r = (await (await client()).search.memories({ q, containerTag: tag, limit } as never)) as unknown as { results?: Hit[] };
    return r.results ?? [];
  };
  const profile = async (q?: string) => {
    const r = (await (await client()).profile({ containerTag: tag, ...(q ? { q } : {}) } as never)) as unknown as {
      profile?: { static?: string[]; dynamic?: string[] };
      searchResults?: { results?: Hit[] } | Hit[];
    };
    const sr = r.searchResults;
    return { static: r.profile?.static ?? [], dynamic: r.profile?.dynamic ?? [], results: (Array.isArray(sr) ? sr : sr?.results) ?? [] };
  };
  const store = async (content: string, metadata: Record<string, unknown> = {}) =>
    (await (await client()).add({ content, containerTags: [tag], metadata: { sm_source: 'hermes', ...metadata } } as never)) as unknown as { id?: string };
  const ingest = (messages: { role: string; content: string }[]) =>
    requestJson('Supermemory', baseUrl, '/v4/conversations', {
      body: { conversationId: sessionId, messages, containerTags: [tag], metadata: { sm_source: 'hermes', type: 'full_session', session_id: sessionId } },
      headers: { authorization: `Bearer ${apiKey}`, 'x-sm-source': 'hermes' },
      timeoutMs: timeoutMs + 3000,
    });

  return {
    name: 'supermemory',
    isAvailable: () => !!apiKey,
    initialize(ctx) {
      sessionId = ctx.sessionId;
      turns = 0;
    },
    systemPromptBlock: () => `# Supermemory\nActive. Container: ${tag}.\nUse supermemory_search, supermemory_store, supermemory_forget and supermemory_profile.`,
    toolSchemas: () => [
      toolSchema('supermemory_store', 'Store an explicit memory for future recall.', { content: str('The memory content to store.') }, ['content']),
      toolSchema('supermemory_search', 'Search long-term memory by semantic similarity.', { query: str('What to search for.'), limit: int('Maximum results to return, 1 to 20.') }, ['query']),
      toolSchema('supermemory_forget', 'Forget a memory by exact id or by best-match query.', { id: str('Exact memory id to delete.'), query: str('Query used to find the memory to forget.') }),
      toolSchema('supermemory_profile', 'Retrieve persistent profile facts and recent memory context.', { query: str('Optional query to focus the profile response.') }),
    ],
    async handleToolCall(name, a) {
      if (name === 'supermemory_store') {
        const content = String(a.content ?? '').trim();
        if (!content) return toolErr('content is required');
        const r = await store(content);
        return toolOk({ saved: true, id: r.id ?? '', preview: content.slice(0, 80) });
      }
      if (name === 'supermemory_search') {
        if (!a.query) return toolErr('query is required');
        const r = await search(String(a.query), Math.max(1, Math.min(20, Number(a.limit) || 5)));
        return toolOk({ results: r.map((h) => ({ id: h.id, content: h.memory, ...(h.similarity !== undefined ? { similarity: Math.round(h.similarity * 100) } : {}) })), count: r.length });
      }
      if (name === 'supermemory_forget') {
        let id = String(a.id ?? '').trim();
        if (!id && a.query) id = (await search(String(a.query), 5))[0]?.id ?? '';
        if (!id) return toolErr(a.query ? 'No matching memory found to forget.' : 'Provide either id or query');
        await (await client()).memories.forget({ containerTag: tag, id } as never);
        return toolOk({ success: true, id });
      }
      if (name === 'supermemory_profile') {
        const p = await profile(a.query ? String(a.query) : undefined);
        return toolOk({ static: p.static, dynamic: p.dynamic, count: p.static.length + p.dynamic.length });
      }
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      if (!autoRecall) return undefined;
      turns++;
      const p = await profile(query.slice(0, 200));
      const withProfile = turns <= 1 || turns % profileEvery === 0;
      const parts: string[] = [];
      if (withProfile && p.static.length) parts.push(`## User Profile (Persistent)\n${p.static.slice(0, maxResults).map((f) => `- ${f}`).join('\n')}`);
      if (withProfile && p.dynamic.length) parts.push(`## Recent Context\n${p.dynamic.slice(0, maxResults).map((f) => `- ${f}`).join('\n')}`);
      const hits = p.results.filter((h) => h.memory).slice(0, maxResults);
      if (hits.length) parts.push(`## Relevant Memories\n${hits.map((h) => `- ${h.memory}`).join('\n')}`);
      return parts.length ? parts.join('\n\n') : undefined;
    },
    syncTurn(user, assistant) {
      if (!autoCapture) return;
      const content = `[role: user]\n${cleanForCapture(user)}\n[user:end]\n\n[role: assistant]\n${cleanForCapture(assistant)}\n[assistant:end]`;
      return store(content, { type: 'conversation_turn', session_id: sessionId }).then(() => undefined);
    },
    async onSessionEnd(messages: readonly Message[]) {
      if (!autoCapture) return;
      const cleaned = messages
        .filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string')
        .map((m) => ({ role: m.role, content: cleanForCapture(m.content as string) }))
        .filter((m) => m.content);
      if (cleaned.length >= 2) await ingest(cleaned);
    },
    onMemoryWrite(action, target, content) {
      if (action === 'add' && content.trim()) void store(content.trim(), { target, type: 'explicit_memory' }).catch(() => {});
    },
    async healthCheck() {
      const p = await profile();
      const facts = p.static.length + p.dynamic.length;
      return `connected to ${baseUrl} · container ${tag} · ${facts} profile fact${facts === 1 ? '' : 's'}`;
    },
    describe: () => ({ endpoint: baseUrl, container_tag: tag, auto_recall: String(autoRecall), auto_capture: String(autoCapture), api_key: apiKey ? 'set (SUPERMEMORY_API_KEY)' : 'not set' }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'supermemory',
  description: 'Supermemory: semantic long-term memory with profile recall and session ingest',
  fields: [
    { key: 'api_key', description: 'Supermemory API key', secret: true, required: true, env: 'SUPERMEMORY_API_KEY' },
    { key: 'base_url', description: 'API endpoint (blank for https://api.supermemory.ai)' },
    { key: 'container_tag', description: 'Container tag', default: 'hermes' },
  ],
  create,
  saveConfig(values, home) {
    mergeJsonFile(join(home, 'supermemory.json'), values.container_tag ? { ...values, container_tag: sanitizeTag(values.container_tag) } : values);
  },
};
export default factory;
