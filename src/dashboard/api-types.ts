// What the dashboard's JSON API answers, one type per response: the server checks what it sends
// against them (`satisfies` in src/dashboard/api/*.ts) and the web app (web/src) reads them with
// `import type`, so the two cannot drift apart. Types only, importing only other type-only modules
// free of Node's types (the sidecar's events): the web app's own tsconfig (browser libraries, no
// Node types) checks this file too, and esbuild drops type imports, so none of the server's code
// reaches the bundle.
import type { TokenSummary } from '../llm/token-types.ts';
import type { SidecarEvent, SidecarRequest } from '../session/sidecar-types.ts';
import type { LedgerCounts, SearchHit } from '../state/view-types.ts';

export type { LedgerCounts, SearchHit, TokenSummary };

// ---- Overview (/api/status, /api/commands) -------------------------------------------------------

export interface StatusResponse {
  version: string;
  home: string;
  startedAt: number;
  model: { provider: string; model: string } | null;
  modelProblem: string | null;
  configProblem: string | null;
  sessions: number;
  activeSessions: number;
  gateway: { running: boolean; pid: number | null; platforms: Record<string, string>; ledger: LedgerCounts | null };
  chat: { args: string[]; open: number };
  plugins: { name: string; label: string; icon: string; tab: { path: string; position: string; hidden: boolean }; entry: string; css: string | null }[];
  problems: string[];
  /** provider_health.json: targets with faults lately; `line` says it in one line. */
  providerHealth: { provider: string; model: string; state: 'ok' | 'tripped'; line: string }[];
  /** local_models.json: per local endpoint and model, the served window, capabilities and self-test verdict. */
  localModels: { kind: string | null; base_url: string; model: string; window: number | null; selftest: { verdict: string } | null; line: string }[];
  /** Today's model spend (every process of this home) and the budgets (config.yaml budgets:). */
  spend: { today: { usd: number; tokens: number; calls: number }; caps: Record<string, number | string> | null; lines: string[] };
}

export interface CommandsResponse {
  commands: { name: string; args: string; description: string; category: string; aliases: string[] }[];
}

// ---- Sessions ------------------------------------------------------------------------------------

export interface SessionListItem {
  id: string;
  title: string | null;
  source: string;
  model: string | null;
  started_at: number;
  ended_at: number | null;
  last_active: number;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost_usd: number | null;
  archived: boolean;
  preview: string;
}

export interface SessionListResponse {
  sessions: SessionListItem[];
  total: number;
  limit: number;
  offset: number;
}

export interface FacetsResponse {
  sources: { value: string; count: number }[];
  models: { value: string; count: number }[];
}

export interface SearchResponse {
  query: string;
  hits: SearchHit[];
}

export interface MessageView {
  id: number;
  role: string;
  content: string;
  reasoning: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  toolName: string | null;
  toolCallId: string | null;
  timestamp: number;
  /** Folded into a compression summary (kept for the record, not sent to the model). */
  compacted: boolean;
}

export interface SessionResponse {
  /** The session's row, without its system prompt and model settings. */
  session: { id: string; title: string | null; source: string; model: string | null; started_at: number; ended_at: number | null; message_count: number; tool_call_count: number; input_tokens: number; output_tokens: number; estimated_cost_usd: number | null } & Record<string, unknown>;
  messages: MessageView[];
}

// ---- Analytics -----------------------------------------------------------------------------------

export interface AnalyticsReport {
  days: number;
  empty: boolean;
  overview: { sessions: number; messages: number; toolCalls: number; apiCalls: number; costUsd: number; unknownCostSessions: number; activeHours: number; avgMessagesPerSession: number; tokens: TokenSummary };
  daily: { date: string; sessions: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; totalTokens: number; toolCalls: number; costUsd: number }[];
  models: { model: string; sessions: number; inputTokens: number; outputTokens: number; totalTokens: number; toolCalls: number; costUsd: number; priced: boolean }[];
  sources: { source: string; sessions: number; messages: number; totalTokens: number; toolCalls: number; costUsd: number }[];
  tools: { tool: string; count: number; pct: number }[];
  activity: { byHour: { hour: number; count: number }[]; byDay: { day: string; count: number }[]; activeDays: number; maxStreak: number };
}

// ---- Skills --------------------------------------------------------------------------------------

export interface SkillListItem {
  name: string;
  description: string;
  category: string;
  source: string;
  version: string | null;
  platforms: string[];
  tags: string[];
  enabled: boolean;
  requiredEnv: { name: string; set: boolean }[];
}

export interface SkillsResponse {
  skills: SkillListItem[];
  problems: { path: string; error: string }[];
}

export interface SkillResponse {
  name: string;
  description: string;
  path: string;
  source: string;
  markdown: string;
  files: string[];
  verdict: string;
  findings: string[];
  /** From the hub lock: where it was installed from and when (null: not from the hub). */
  installed: { from: string; source: string; at: string | null } | null;
  enabled: boolean;
}

// ---- Cron ----------------------------------------------------------------------------------------

/** A job as `hermes cron list --json` shows it (src/cron/job-view.ts). */
export type { JobView as CronJobView } from '../cron/job-view.ts';
import type { JobView as CronJobView } from '../cron/job-view.ts';

export interface CronListResponse {
  jobs: (CronJobView & { prompt: string; created_at: string })[];
  tickerAlive: boolean;
  note: string | null;
  lastTickError: string | null;
}

export interface CronRunsResponse {
  job: CronJobView;
  runs: { file: string; at: number; size: number; output: string }[];
}

// ---- Config, model, keys -------------------------------------------------------------------------

export interface ConfigFieldView {
  key: string;
  section: string;
  type: 'boolean' | 'number' | 'string' | 'list' | 'object';
  default: unknown;
  /** null is a valid value (e.g. model.context_length: auto). */
  nullable?: boolean;
  options?: string[];
  secret?: boolean;
  /** Edited as YAML in config.yaml (maps of named entries), shown read-only here. */
  readOnly?: boolean;
}

export interface ConfigResponse {
  path: string;
  exists: boolean;
  schema: ConfigFieldView[];
  values: Record<string, unknown>;
  set: string[];
  problems: { key: string; message: string; line?: number }[];
  mask: string;
}

export interface ProviderOption {
  value: string;
  label: string;
  hint: string;
  named: boolean;
  custom: boolean;
  keyEnv: string | null;
  hasKey: boolean;
  keyOptional: boolean;
  defaultModel: string | null;
}

export interface ModelResponse {
  /** What runs now (`configured`: the provider config.yaml names, e.g. auto); config.yaml's values when it cannot resolve. */
  current: { provider: string; model: string; baseUrl: string | undefined; apiMode: string | undefined; configured?: string };
  problem: string | null;
  providers: ProviderOption[];
}

export interface ModelsResponse {
  models: { id: string; contextLength: number | null }[];
}

export interface EnvKey {
  name: string;
  group: string;
  description: string;
  set: boolean;
  where: 'file' | 'environment' | null;
  preview: string;
}

export interface EnvResponse {
  path: string;
  keys: EnvKey[];
}

// ---- Gateway -------------------------------------------------------------------------------------

export interface GatewayResponse {
  running: boolean;
  pid?: number;
  startedAt?: string;
  logPath: string;
  platforms: Record<string, { state: string; since: string; attempts: number; last_error?: string; next_retry_at?: string }>;
  ledger: LedgerCounts | null;
  enabled: { id: string; label: string; state: string; detail: { state: string; since: string; attempts: number; last_error?: string; next_retry_at?: string } | null }[];
  pending: { platform: string; request_id: string; user_id: string; user_name: string; age_minutes: number }[];
  approved: { platform: string; user_id: string; user_name: string; approved_at: number }[];
}

// ---- Logs ----------------------------------------------------------------------------------------

export interface LogFilesResponse {
  /** The files in logs/: the log's name (its file name when it is not one of ours), size, mtime in ms. */
  files: { name: string; file: string; size: number; mtime: number }[];
  names: string[];
  components: string[];
}

export interface LogPage {
  file: string;
  exists: boolean;
  lines: string[];
  size: number;
  /** The file was rotated since `from`: read it again from its end. */
  rotated?: boolean;
}

// ---- Chat (the event sidecar, /api/events) -------------------------------------------------------

/** An open request as the Chat tab shows it (secrets only by name). */
export type ChatRequest = SidecarRequest;

/** One tool call in the Chat tab's panel: the event describer's icon and main argument. */
export interface ChatToolEntry {
  callId: string;
  name: string;
  emoji: string;
  detail: string;
  args: string;
  status: 'running' | 'ok' | 'error';
  durationMs?: number;
  preview?: string;
  at: number;
}

export interface ChatInfo {
  sessionId?: string;
  model?: string;
  provider?: string;
  cwd?: string;
  pid?: number;
}

export interface ChatUsage {
  input: number;
  output: number;
  costUsd: number;
}

/** What `/api/events` sends: a snapshot for a late joiner, then the chat process's events as they come. */
export type ChatEvent =
  | { type: 'snapshot'; connected: boolean; info: ChatInfo; requests: { id: string; request: ChatRequest }[]; tools: ChatToolEntry[]; usage: ChatUsage; exited: { code: number | null } | null }
  | { type: 'hello'; info: ChatInfo }
  | Exclude<SidecarEvent, { type: 'hello' }>
  | { type: 'exit'; code: number | null };
