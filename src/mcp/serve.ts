// `hermes mcp serve`: Hermes as an MCP server on stdio. Other agents (Claude Code, Cursor, Codex…)
// list and read Hermes's conversations and wait for new messages; with --tools they also get
// Hermes's web, vision and skills tools (never terminal or file tools). Stdout carries only the
// protocol; logs go to stderr.
import pkg from '../../package.json' with { type: 'json' };
import type { z } from 'zod';
import type { AgentTool } from '../agent/types.ts';
import type { JsonSchema } from '../llm/types.ts';
import { toJsonSchema } from '../tools/registry.ts';
import { getZod } from '../tools/zod.ts';
import { ConversationStore, storedAttachments } from './conversations.ts';

/**
 * Toolsets `--tools` exposes, when this build has them. Terminal, process, file and code tools are
 * never exposed (a client agent such as Codex has its own shell and file tools).
 */
export const SERVE_TOOLSETS = ['web', 'vision', 'skills', 'browser', 'image_gen', 'tts', 'kanban'];
const NEVER = new Set(['terminal', 'process', 'read_file', 'write_file', 'patch', 'search_files', 'execute_code', 'delegate_task']);

interface ServedTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<{ text: string; isError?: boolean }>;
}

const int = (v: unknown, dflt: number, min: number, max: number) => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.max(min, Math.min(max, Math.trunc(n))) : dflt;
};
const json = (v: unknown) => JSON.stringify(v, null, 2);

function def<S extends z.ZodObject>(name: string, description: string, schema: S, run: (a: z.infer<S>, signal: AbortSignal) => Promise<unknown> | unknown): ServedTool {
  return {
    name,
    description,
    inputSchema: toJsonSchema(schema),
    async run(args, signal) {
      const parsed = schema.safeParse(args ?? {});
      if (!parsed.success) return { text: json({ error: `Invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}` }), isError: true };
      const out = await run(parsed.data, signal);
      const isError = !!out && typeof out === 'object' && 'error' in (out as object);
      return { text: json(out), isError };
    },
  };
}

/** The conversation tools (OpenClaw-compatible channel bridge surface, read side). */
export type SendFn = (target: string, message: string) => Promise<{ ok: boolean; error?: string }>;

export function conversationTools(store: ConversationStore, send?: SendFn): ServedTool[] {
  const z = getZod();
  const num = z.union([z.number(), z.string()]).optional();
  return [
    def(
      'conversations_list',
      'List Hermes conversations (CLI, editor and messaging sessions), most recent first, with the session_key each other tool takes.',
      z.object({
        platform: z.string().optional().describe('Only this platform/source (cli, acp, telegram, discord, slack, …)'),
        limit: num.describe('Maximum conversations (default 50, at most 200)'),
        search: z.string().optional().describe('Only conversations whose name or title contains this text'),
      }),
      async (a) => {
        const list = await store.list({ platform: a.platform, search: a.search, limit: int(a.limit, 50, 1, 200) });
        return { count: list.length, conversations: list.map(({ session_key, session_id, platform, chat_type, display_name, chat_name, user_name, title, updated_at, message_count }) => ({ session_key, session_id, platform, chat_type, display_name, chat_name, user_name, title, updated_at, message_count })) };
      },
    ),
    def('conversation_get', 'Details of one conversation by its session_key (from conversations_list).', z.object({ session_key: z.string().min(1) }), async (a) => {
      const c = await store.get(a.session_key);
      return c ?? { error: `Conversation not found: ${a.session_key}. List them with conversations_list.` };
    }),
    def(
      'messages_read',
      'Read the recent messages of a conversation (user and assistant turns, oldest first).',
      z.object({ session_key: z.string().min(1), limit: num.describe('Most recent N messages (default 50, at most 200)') }),
      async (a) => {
        const c = await store.get(a.session_key);
        if (!c) return { error: `Conversation not found: ${a.session_key}. List them with conversations_list.` };
        const all = (await store.messages(c.session_id)).filter((m) => m.content);
        const limit = int(a.limit, 50, 1, 200);
        const messages = all.slice(-limit).map((m) => ({ id: m.id, role: m.role, content: m.content.slice(0, 2000), timestamp: m.timestamp }));
        return { session_key: c.session_key, count: messages.length, total_in_session: all.length, messages };
      },
    ),
    def(
      'attachments_fetch',
      'List the non-text attachments (images, media files) of one message of a conversation.',
      z.object({ session_key: z.string().min(1), message_id: z.union([z.string(), z.number()]).transform(String) }),
      async (a) => {
        const c = await store.get(a.session_key);
        if (!c) return { error: `Conversation not found: ${a.session_key}.` };
        const m = (await store.messages(c.session_id)).find((x) => x.id === a.message_id);
        if (!m) return { error: `Message not found: ${a.message_id}.` };
        const attachments = storedAttachments(m.raw);
        return { message_id: a.message_id, count: attachments.length, attachments };
      },
    ),
    def(
      'events_poll',
      'New conversation events (type "message") since a cursor. Pass the returned next_cursor to the next call; 0 starts from when this server started.',
      z.object({ after_cursor: num, session_key: z.string().optional(), limit: num.describe('At most this many events (default 20, at most 200)') }),
      (a) => store.pollEvents(int(a.after_cursor, 0, 0, Number.MAX_SAFE_INTEGER), a.session_key || undefined, int(a.limit, 20, 1, 200)),
    ),
    def(
      'events_wait',
      'Wait for the next conversation event after a cursor (long poll): returns as soon as one arrives, or {event: null} after timeout_ms.',
      z.object({ after_cursor: num, session_key: z.string().optional(), timeout_ms: num.describe('Longest wait in ms (default 30000, at most 300000)') }),
      async (a, signal) => {
        const e = await store.waitEvent(int(a.after_cursor, 0, 0, Number.MAX_SAFE_INTEGER), a.session_key || undefined, int(a.timeout_ms, 30_000, 0, 300_000), signal);
        return e ? { event: e } : { event: null, reason: 'timeout' };
      },
    ),
    ...(send
      ? [
          def(
            'messages_send',
            'Send a message into a messaging conversation through Hermes (Telegram, Discord, Slack, email). Give the conversation\'s session_key (from conversations_list), or a target "platform:chat_id[:thread_id]" (from channels_list).',
            z.object({
              message: z.string().min(1).describe('The text to send'),
              session_key: z.string().optional().describe('A conversation from conversations_list'),
              target: z.string().optional().describe('"platform:chat_id[:thread_id]", or a platform name for its home channel'),
            }),
            async (a) => {
              let target = a.target?.trim();
              if (a.session_key) {
                const c = await store.get(a.session_key);
                if (!c) return { error: `Conversation not found: ${a.session_key}. List them with conversations_list.` };
                if (!c.chat_id || ['cli', 'acp', 'cron', 'api_server', 'webhook', 'subagent'].includes(c.platform))
                  return { error: `${a.session_key} is a ${c.platform || 'local'} session, not a messaging chat; only messaging conversations can receive messages.` };
                target = `${c.platform}:${c.chat_id}${c.thread_id ? `:${c.thread_id}` : ''}`;
              }
              if (!target) return { error: 'Say where to send: session_key (from conversations_list) or target (from channels_list).' };
              const r = await send(target, a.message);
              return r.ok ? { sent: true, target } : { error: r.error ?? 'delivery failed', target };
            },
          ),
        ]
      : []),
    def(
      'channels_list',
      'Messaging channels Hermes can reach, as "platform:chat_id" targets (from the gateway\'s channel directory, or known conversations).',
      z.object({ platform: z.string().optional() }),
      async (a) => {
        const channels = await store.channels(a.platform);
        return { count: channels.length, channels };
      },
    ),
  ];
}

/** Hermes tools (web, vision, skills) as served tools. */
export function agentTools(tools: AgentTool[]): ServedTool[] {
  return tools
    .filter((t) => !NEVER.has(t.name))
    .map((t) => ({
      name: t.name,
      description: t.schema.description,
      inputSchema: t.schema.parameters,
      async run(args: Record<string, unknown>, signal: AbortSignal) {
        const r = await t.execute(args ?? {}, {
          callId: `mcp_${Date.now().toString(36)}`,
          signal,
          ask: async (req) => ({ answer: (req.kind === 'approval' ? 'deny' : req.kind === 'clarify' ? '' : null) as never, source: 'no_responder' }),
          progress: () => {},
        });
        return { text: r.content, isError: r.isError };
      },
    }));
}

export interface ServeOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** config.yaml (its `state` section picks where conversations are read: state.db or PostgreSQL). */
  config?: ConstructorParameters<typeof ConversationStore>[1];
  /** Also serve Hermes's web, vision and skills tools. */
  tools?: AgentTool[];
  /** Delivers messages_send (the gateway's send-only router); without it the tool is not offered. */
  send?: SendFn;
  /** Serve only `tools` (no conversation tools): the `hermes-tools` server the Codex runtime uses. */
  toolsOnly?: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  log?: (line: string) => void;
}

/** Runs the server until stdin closes. */
export async function serveMcp(o: ServeOptions): Promise<void> {
  const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const log = o.log ?? ((l: string) => process.stderr.write(`hermes mcp serve: ${l}\n`));
  const store = o.toolsOnly ? null : new ConversationStore(o.home, o.config, o.env);
  await store?.start();
  const served = [...(store ? conversationTools(store, o.send) : []), ...agentTools(o.tools ?? [])];
  const byName = new Map(served.map((t) => [t.name, t]));
  const server = new Server(
    { name: 'hermes', version: pkg.version },
    {
      capabilities: { tools: {} },
      instructions: store
        ? 'Hermes Agent: read Hermes conversations (CLI, editor and messaging sessions) with conversations_list / messages_read, and follow new messages with events_poll / events_wait.' +
          (o.tools?.length ? ' Hermes web, vision and skills tools are available too.' : '')
        : 'Hermes Agent tools: web search and extraction, image analysis, and the Hermes skills library (skills_list, skill_view).',
    },
  );
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: served.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object'; [k: string]: unknown } })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (req, extra) => {
    const t = byName.get(req.params.name);
    if (!t) return { content: [{ type: 'text' as const, text: json({ error: `Unknown tool "${req.params.name}". Available: ${served.map((x) => x.name).join(', ')}.` }) }], isError: true };
    try {
      const r = await t.run((req.params.arguments ?? {}) as Record<string, unknown>, extra.signal);
      return { content: [{ type: 'text' as const, text: r.text }], isError: r.isError || undefined };
    } catch (e) {
      log(`${t.name} failed: ${(e as Error).message}`);
      return { content: [{ type: 'text' as const, text: json({ error: `${t.name} failed: ${(e as Error).message}` }) }], isError: true };
    }
  });
  const transport = new StdioServerTransport(o.input as never, o.output as never);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
    (o.input ?? process.stdin).once('end', () => resolve());
  });
  await server.connect(transport);
  server.onclose = () => resolveClosed();
  log(`serving ${served.length} tools on stdio (${served.map((t) => t.name).join(', ')})`);
  await closed;
  await store?.stop();
  await server.close().catch(() => {});
}
