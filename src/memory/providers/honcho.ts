// Honcho (Plastic Labs): cross-session user modelling. Turns are written to a Honcho session as
// messages of a user peer and an AI peer; recall is the session context (summary, representation,
// peer card) plus, every few turns, the dialectic answer of peer.chat(). Through the official SDK
// (@honcho-ai/sdk, loaded on first use). Config: $HERMES_HOME/honcho.json, else ~/.honcho/config.json
// (`hosts.hermes` block over the root keys); HONCHO_API_KEY, HONCHO_BASE_URL.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { Message } from '../../llm/types.ts';
import { mergeJsonFile, pick, readJsonFile } from '../http.ts';
import { cleanForCapture, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

type HonchoSdk = typeof import('@honcho-ai/sdk');
type Client = InstanceType<HonchoSdk['Honcho']>;

export function honchoConfigPath(home: string): string {
  const local = join(home, 'honcho.json');
  if (existsSync(local)) return local;
  const global = join(homedir(), '.honcho', 'config.json');
  return existsSync(global) ? global : local;
}

const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '').slice(0, 100) || 'default';

function create(e: ProviderEnv): ExternalMemoryProvider {
  const file = readJsonFile(honchoConfigPath(e.home));
  const host = ((file.hosts as Record<string, Record<string, unknown>> | undefined)?.hermes ?? {}) as Record<string, unknown>;
  const get = (k: string) => host[k] ?? file[k];
  const apiKey = pick(get('apiKey'), e.env.HONCHO_API_KEY);
  const baseUrl = pick(get('baseUrl'), e.env.HONCHO_BASE_URL);
  const workspace = pick(get('workspace')) ?? 'hermes';
  const aiPeerId = pick(get('aiPeer')) ?? 'hermes';
  const userPeerId = pick(get('peerName'), e.env.USER) ?? 'user';
  const recallMode = pick(get('recallMode')) ?? 'hybrid';
  const strategy = pick(get('sessionStrategy')) ?? 'per-directory';
  const dialecticCadence = Math.max(1, Number(get('dialecticCadence')) || 2);
  const contextCadence = Math.max(1, Number(get('contextCadence')) || 1);
  const maxChars = Number(get('dialecticMaxChars')) || 600;
  const contextTokens = Number(get('contextTokens')) || undefined;
  const sessionsMap = (file.sessions ?? {}) as Record<string, string>;
  const saveMessages = get('saveMessages') !== false;
  let client: Promise<Client> | null = null;
  let sessionName = 'default';
  let turns = 0;
  let lastBase = '';

  const honcho = () =>
    (client ??= import('@honcho-ai/sdk').then((m) => new m.Honcho({ apiKey: apiKey ?? 'local', workspaceId: workspace, ...(baseUrl ? { baseURL: baseUrl } : {}) } as never)));
  const peers = async () => {
    const h = await honcho();
    return { h, user: await h.peer(clean(userPeerId)), ai: await h.peer(clean(aiPeerId)) };
  };
  const session = async () => {
    const { h, user, ai } = await peers();
    const s = await h.session(clean(sessionName));
    return { s, user, ai };
  };
  let peersAdded: Promise<void> | null = null;
  const ensurePeers = async () => {
    peersAdded ??= (async () => {
      const { s, user, ai } = await session();
      await s.addPeers([user, ai]);
    })().catch((err) => {
      peersAdded = null;
      throw err;
    });
    return peersAdded;
  };
  const baseContext = async (): Promise<string> => {
    const { s, user } = await session();
    const ctx = (await s.context({ summary: true, peerTarget: user, ...(contextTokens ? { tokens: contextTokens } : {}) })) as unknown as {
      summary?: { content?: string } | null;
      peerRepresentation?: string | null;
      peerCard?: string[] | null;
    };
    const parts: string[] = [];
    if (ctx.summary?.content) parts.push(`## Session summary\n${ctx.summary.content}`);
    if (ctx.peerRepresentation) parts.push(`## What Honcho knows about ${userPeerId}\n${ctx.peerRepresentation}`);
    if (ctx.peerCard?.length) parts.push(`## Peer card\n${ctx.peerCard.map((c) => `- ${c}`).join('\n')}`);
    return parts.join('\n\n');
  };
  const dialectic = async (query: string): Promise<string> => {
    const { ai, user } = await peers();
    const r = (await ai.chat(query.slice(0, 10_000), { target: user, session: clean(sessionName) } as never)) as unknown;
    const text = typeof r === 'string' ? r : ((r as { content?: string } | null)?.content ?? '');
    return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  };

  return {
    name: 'honcho',
    isAvailable: () => (!!apiKey || !!baseUrl) && host.enabled !== false,
    initialize(ctx) {
      turns = 0;
      const dir = ctx.cwd ?? '';
      sessionName =
        strategy === 'per-session' ? ctx.sessionId : strategy === 'global' ? 'global' : sessionsMap[dir] ?? (dir ? basename(dir) : 'default');
    },
    systemPromptBlock: () =>
      `# Honcho memory\nActive: Honcho models ${userPeerId} across sessions (workspace ${workspace}, session ${sessionName}).` +
      (recallMode !== 'context' ? ' Tools: honcho_profile, honcho_search, honcho_context, honcho_reasoning, honcho_conclude.' : ''),
    toolSchemas: () =>
      recallMode === 'context'
        ? []
        : [
            toolSchema('honcho_profile', "Read the user's peer card (durable facts), or replace it.", { card: str('New card, one fact per line (omit to read)') }),
            toolSchema('honcho_search', 'Semantic search over what Honcho has seen of the user.', { query: str('What to look for') }, ['query']),
            toolSchema('honcho_context', 'The session context: summary, representation of the user, peer card.'),
            toolSchema('honcho_reasoning', "Ask Honcho's dialectic model a question about the user (LLM-synthesized answer).", { query: str('The question') }, ['query']),
            toolSchema('honcho_conclude', 'Record a conclusion about the user that Honcho should keep.', { conclusion: str('The conclusion') }, ['conclusion']),
          ],
    async handleToolCall(name, a) {
      const { user, ai } = await peers();
      if (name === 'honcho_profile') {
        if (typeof a.card === 'string' && a.card.trim()) {
          const card = a.card.split('\n').map((l) => l.trim()).filter(Boolean);
          await ai.setCard(card, user);
          return toolOk({ updated: true, card });
        }
        return toolOk({ card: (await ai.getCard(user)) ?? [] });
      }
      if (name === 'honcho_search') {
        const r = (await user.search(String(a.query ?? ''))) as unknown as { content?: string }[];
        return toolOk({ results: (r ?? []).map((m) => m.content), count: r?.length ?? 0 });
      }
      if (name === 'honcho_context') return toolOk({ context: await baseContext() });
      if (name === 'honcho_reasoning') return toolOk({ answer: await dialectic(String(a.query ?? '')) });
      if (name === 'honcho_conclude') {
        if (!a.conclusion) return toolErr('conclusion is required');
        const { s } = await session();
        await ensurePeers();
        await s.addMessages([ai.message(`Conclusion about ${userPeerId}: ${String(a.conclusion)}`)]);
        return toolOk({ recorded: true });
      }
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      if (recallMode === 'tools') return undefined;
      turns++;
      if (turns === 1 || turns % contextCadence === 0) lastBase = await baseContext();
      const parts = lastBase ? [lastBase] : [];
      if (turns === 1 || turns % dialecticCadence === 0) {
        const d = await dialectic(lastBase ? `Given this session, what matters about ${userPeerId} for: ${query}` : `What do you know about ${userPeerId} that helps with: ${query}`);
        if (d) parts.push(`## Dialectic\n${d}`);
      }
      return parts.length ? parts.join('\n\n') : undefined;
    },
    syncTurn(userText, assistant) {
      if (!saveMessages) return;
      return (async () => {
        await ensurePeers();
        const { s, user, ai } = await session();
        await s.addMessages([user.message(cleanForCapture(userText).slice(0, 25_000)), ai.message(cleanForCapture(assistant).slice(0, 25_000))]);
      })();
    },
    async onSessionEnd(_m: readonly Message[]) {
      /* messages are written each turn; Honcho derives summaries server-side */
    },
    onMemoryWrite(action, target, content) {
      if (action !== 'add' || !content.trim() || target !== 'user') return;
      void peers()
        .then(async ({ ai, user }) => ai.setCard([...((await ai.getCard(user)) ?? []), content.trim()], user))
        .catch(() => {});
    },
    async healthCheck() {
      const { ai, user } = await peers();
      const card = (await ai.getCard(user)) ?? [];
      return `connected to ${baseUrl ?? 'Honcho cloud'} · workspace ${workspace} · peers ${userPeerId}/${aiPeerId} · card ${card.length} fact${card.length === 1 ? '' : 's'}`;
    },
    describe: () => ({ endpoint: baseUrl ?? 'Honcho cloud', workspace, user_peer: userPeerId, ai_peer: aiPeerId, recall_mode: recallMode, session_strategy: strategy, api_key: apiKey ? 'set' : 'not set' }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'honcho',
  description: 'Honcho: cross-session user modelling with dialectic reasoning',
  fields: [
    { key: 'apiKey', description: 'Honcho API key (blank for a self-hosted instance)', secret: true, env: 'HONCHO_API_KEY' },
    { key: 'baseUrl', description: 'Self-hosted Honcho URL (blank for Honcho cloud)' },
    { key: 'peerName', description: 'Your name (the user peer)' },
    { key: 'workspace', description: 'Workspace', default: 'hermes' },
  ],
  create,
  saveConfig(values, home) {
    const path = join(home, 'honcho.json');
    const cur = readJsonFile(path);
    const hosts = (cur.hosts ?? {}) as Record<string, Record<string, unknown>>;
    hosts.hermes = { enabled: true, aiPeer: 'hermes', ...(hosts.hermes ?? {}), ...values };
    mergeJsonFile(path, { hosts });
  },
};
export default factory;
