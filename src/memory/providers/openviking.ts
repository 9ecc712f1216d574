// OpenViking (Volcengine's context database): tiered retrieval over viking:// URIs and session
// commits that extract memories, over its HTTP API. OPENVIKING_URL (default http://127.0.0.1:1933;
// legacy OPENVIKING_ENDPOINT), OPENVIKING_API_KEY, OPENVIKING_ACCOUNT, OPENVIKING_USER,
// OPENVIKING_ACTOR_PEER_ID (legacy OPENVIKING_AGENT).
import type { Message } from '../../llm/types.ts';
import { pick, requestJson } from '../http.ts';
import { cleanForCapture, int, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

interface Ctx {
  uri?: string;
  abstract?: string;
  score?: number;
}

function create(e: ProviderEnv): ExternalMemoryProvider {
  const base = (pick(e.env.OPENVIKING_URL, e.env.OPENVIKING_ENDPOINT) ?? 'http://127.0.0.1:1933').replace(/\/+$/, '');
  const apiKey = pick(e.env.OPENVIKING_API_KEY);
  const agent = pick(e.env.OPENVIKING_ACTOR_PEER_ID, e.env.OPENVIKING_AGENT) ?? 'hermes';
  const headers: Record<string, string> = { 'x-openviking-agent': agent };
  if (apiKey) headers['x-api-key'] = apiKey;
  if (e.env.OPENVIKING_ACCOUNT) headers['x-openviking-account'] = e.env.OPENVIKING_ACCOUNT;
  if (e.env.OPENVIKING_USER) headers['x-openviking-user'] = e.env.OPENVIKING_USER;
  let vikingSession: string | null = null;
  let sessionId = '';
  const call = <T>(path: string, o: { body?: unknown; method?: string; query?: Record<string, string> } = {}) =>
    requestJson<{ result?: T; status?: string }>('OpenViking', base, path, { ...o, headers, timeoutMs: 10_000 }).then((r) => (r && typeof r === 'object' && 'result' in r ? (r.result as T) : (r as T)));
  const find = async (query: string, limit: number, target?: string) => {
    const r = await call<{ memories?: Ctx[]; resources?: Ctx[]; skills?: Ctx[] }>('/api/v1/search/find', { body: { query, limit, ...(target ? { target_uri: target } : {}) } });
    return [...(r?.memories ?? []), ...(r?.resources ?? []), ...(r?.skills ?? [])];
  };
  const session = async () => {
    if (vikingSession) return vikingSession;
    const r = await call<{ session_id?: string }>('/api/v1/sessions', { body: { session_id: sessionId || undefined } });
    vikingSession = r?.session_id ?? sessionId;
    return vikingSession;
  };
  const addMessage = async (role: string, content: string) => call(`/api/v1/sessions/${encodeURIComponent(await session())}/messages`, { body: { role, content } });
  const commit = async () => {
    if (vikingSession) await call(`/api/v1/sessions/${encodeURIComponent(vikingSession)}/commit`, { body: {} });
  };

  return {
    name: 'openviking',
    isAvailable: () => true,
    initialize(ctx) {
      sessionId = ctx.sessionId;
      vikingSession = null;
    },
    systemPromptBlock: () => `# OpenViking\nActive (${base}). Knowledge lives under viking:// URIs: viking_search finds it, viking_read reads it (abstract / overview / full), viking_browse lists a directory, viking_remember stores a fact, viking_add_resource ingests a URL or document.`,
    toolSchemas: () => [
      toolSchema('viking_search', 'Semantic search over memories, resources and skills.', { query: str('What to look for'), target_uri: str('Limit to this viking:// subtree'), limit: int('Max results (default 8)') }, ['query']),
      toolSchema('viking_read', 'Read a viking:// URI at a level of detail.', { uri: str('The viking:// URI'), level: str('abstract (~100 tokens), overview (~2k) or full', ['abstract', 'overview', 'full']) }, ['uri']),
      toolSchema('viking_browse', 'List a viking:// directory.', { uri: str('The directory URI (default viking://)') }),
      toolSchema('viking_remember', 'Store a fact in long-term memory.', { content: str('The fact') }, ['content']),
      toolSchema('viking_add_resource', 'Ingest a URL or document as a resource.', { path: str('URL or path on the OpenViking server'), target: str('Target viking:// URI') }, ['path']),
    ],
    async handleToolCall(name, a) {
      if (name === 'viking_search') {
        const r = await find(String(a.query ?? ''), Number(a.limit) || 8, a.target_uri ? String(a.target_uri) : undefined);
        return toolOk({ results: r.map((c) => ({ uri: c.uri, abstract: c.abstract, score: c.score })), count: r.length });
      }
      if (name === 'viking_read') {
        const level = a.level === 'abstract' ? 'abstract' : a.level === 'overview' ? 'overview' : 'read';
        return toolOk({ uri: a.uri, content: await call<string>(`/api/v1/content/${level}`, { query: { uri: String(a.uri) } }) });
      }
      if (name === 'viking_browse') return toolOk({ uri: a.uri ?? 'viking://', entries: await call<unknown>('/api/v1/fs/ls', { query: { uri: String(a.uri ?? 'viking://') } }) });
      if (name === 'viking_remember') {
        if (!a.content) return toolErr('content is required');
        await addMessage('user', `Remember this: ${String(a.content)}`);
        await commit();
        return toolOk({ remembered: true });
      }
      if (name === 'viking_add_resource') return toolOk({ added: true, result: await call<unknown>('/api/v1/resources', { body: { path: String(a.path), ...(a.target ? { target: String(a.target) } : {}) } }) });
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      const r = await find(query.slice(0, 500), 6);
      const lines = r.filter((c) => c.abstract).map((c) => `- ${c.abstract}${c.uri ? ` (${c.uri})` : ''}`);
      return lines.length ? `## OpenViking\n${lines.join('\n')}` : undefined;
    },
    syncTurn(user, assistant) {
      return (async () => {
        await addMessage('user', cleanForCapture(user));
        await addMessage('assistant', cleanForCapture(assistant));
      })();
    },
    async onPreCompress() {
      await commit();
    },
    async onSessionEnd(_m: readonly Message[]) {
      await commit();
    },
    async healthCheck() {
      await requestJson('OpenViking', base, '/health', { headers, timeoutMs: 5000 });
      const r = await find('health check', 1);
      return `connected to ${base} (agent ${agent}, search returned ${r.length})`;
    },
    describe: () => ({ endpoint: base, agent, api_key: apiKey ? 'set (OPENVIKING_API_KEY)' : 'not set' }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'openviking',
  description: 'OpenViking: self-hosted context database with tiered retrieval',
  fields: [
    { key: 'url', description: 'OpenViking server URL', env: 'OPENVIKING_URL', default: 'http://127.0.0.1:1933' },
    { key: 'api_key', description: 'API key (blank for a local server without auth)', secret: true, env: 'OPENVIKING_API_KEY' },
  ],
  create,
  saveConfig() {
    /* everything OpenViking reads is an environment variable (written to .env by the wizard) */
  },
};
export default factory;
