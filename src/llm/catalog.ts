// The provider catalog as data: one row per inference provider (id, endpoint, key env vars, wire,
// quirks). Nothing here talks to the network or imports an SDK; resolve.ts turns a row plus
// config/env into a ProviderRuntime.

import type { ApiMode } from './types.ts';

/** Per-provider behaviour switches read by the wire adapters. Absent = false / the default. */
export interface ProviderQuirks {
  /** Send the assistant's reasoning back as `reasoning_content` (DeepSeek, Kimi, MiMo "echo" families). */
  echoReasoningContent?: boolean;
  /** Send stored `reasoning_details` back on assistant messages (OpenRouter, Nous Portal). */
  replayReasoningDetails?: boolean;
  /** Never send any reasoning field or reasoning parameter (strict validators: Mistral, Groq…). */
  stripReasoning?: boolean;
  /** Name of the output-token limit field on chat completions (default `max_tokens`). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** The system prompt may be sent as a `developer` message to reasoning models (o-series, GPT-5). */
  supportsDeveloperRole?: boolean;
  /** A key is optional (local servers); a placeholder is sent because the SDKs require one. */
  noKeyRequired?: boolean;
  /** How `reasoningEffort` is sent on chat completions: `reasoning_effort` (default) or OpenRouter's `reasoning: {effort}`. */
  reasoningParam?: 'reasoning_effort' | 'openrouter' | 'none';
  /** Claude models served over chat completions accept Anthropic `cache_control` breakpoints (OpenRouter). */
  claudeCacheControl?: boolean;
  /** The endpoint rejects `stream_options: {include_usage: true}`. */
  noStreamUsage?: boolean;
  /** Responses wire: the endpoint rejects `max_output_tokens` / `temperature` (ChatGPT Codex backend). */
  noSamplingParams?: boolean;
}

export interface ProviderSpec {
  id: string;
  name: string;
  aliases: string[];
  apiMode: ApiMode;
  /** Default endpoint. Empty for `custom` (the user supplies it). */
  baseUrl: string;
  /** Env var that overrides the endpoint (e.g. `DEEPSEEK_BASE_URL`). */
  baseUrlEnv?: string;
  /** Key env vars in priority order. The first one set wins (see resolve.ts for several keys). */
  keyEnvs: string[];
  /** Key scoping: the keys from `keyEnvs` are only ever sent to this host (and its subdomains). */
  keyHost?: string;
  quirks: ProviderQuirks;
  defaultModel?: string;
  /** The output cap (`max_tokens`) the conversation sends on this provider when config sets none. */
  defaultMaxTokens?: number;
  /** Path of the model list relative to the base URL (default `/models`; Anthropic `/v1/models`). */
  modelsPath?: string;
  /** Headers sent with every request (attribution, integration ids). Config `extra_headers` add to these. */
  defaultHeaders?: Record<string, string>;
  /** Picked by `provider: auto` when its key env var is set (default true). */
  autoDetect?: boolean;
  /** A user-supplied OpenAI-compatible endpoint. */
  isCustom?: boolean;
  /** The key of this provider's pool in auth.json, when Hermes names it differently from `id`. */
  poolId?: string;
}

/** auth.json `credential_pool` key for a provider (Hermes's provider id). */
export const poolIdOf = (p: ProviderSpec): string => p.poolId ?? p.id;

const ATTRIBUTION = { 'HTTP-Referer': 'https://hermes-agent.nousresearch.com', 'X-Title': 'Hermes Agent' };

const chat = (
  id: string,
  name: string,
  baseUrl: string,
  keyEnvs: string[],
  rest: Partial<ProviderSpec> = {},
): ProviderSpec => ({ id, name, aliases: [], apiMode: 'chat_completions', baseUrl, keyEnvs, quirks: {}, ...rest });

/**
 * Every built-in provider. The order is the `provider: auto` detection order (after an explicit or
 * configured custom base URL): OpenRouter first, then Hermes's registry order.
 */
export const PROVIDERS: ProviderSpec[] = [
  chat('openrouter', 'OpenRouter', 'https://openrouter.ai/api/v1', ['OPENROUTER_API_KEY'], {
    baseUrlEnv: 'OPENROUTER_BASE_URL',
    keyHost: 'openrouter.ai',
    quirks: { replayReasoningDetails: true, reasoningParam: 'openrouter', claudeCacheControl: true },
    defaultModel: 'anthropic/claude-sonnet-4.5',
    defaultHeaders: ATTRIBUTION,
  }),
  chat('nous', 'Nous Portal', 'https://inference-api.nousresearch.com/v1', ['NOUS_API_KEY'], {
    aliases: ['nous-portal'],
    baseUrlEnv: 'NOUS_INFERENCE_BASE_URL',
    quirks: { replayReasoningDetails: true },
  }),
  chat('openai', 'OpenAI', 'https://api.openai.com/v1', ['OPENAI_API_KEY'], {
    aliases: ['openai-api'],
    poolId: 'openai-api',
    baseUrlEnv: 'OPENAI_BASE_URL',
    quirks: { maxTokensField: 'max_completion_tokens', supportsDeveloperRole: true },
    defaultModel: 'gpt-5',
  }),
  chat('gemini', 'Google AI Studio', 'https://generativelanguage.googleapis.com/v1beta/openai', ['GOOGLE_API_KEY', 'GEMINI_API_KEY'], {
    aliases: ['google', 'google-gemini', 'google-ai-studio'],
    baseUrlEnv: 'GEMINI_BASE_URL',
    defaultModel: 'gemini-2.5-pro',
  }),
  chat('zai', 'Z.AI / GLM', 'https://api.z.ai/api/paas/v4', ['GLM_API_KEY', 'ZAI_API_KEY', 'Z_AI_API_KEY'], {
    aliases: ['glm', 'z-ai', 'z.ai', 'zhipu'],
    baseUrlEnv: 'GLM_BASE_URL',
    defaultModel: 'glm-4.6',
  }),
  chat('kimi-coding', 'Kimi / Moonshot', 'https://api.moonshot.ai/v1', ['KIMI_API_KEY', 'KIMI_CODING_API_KEY'], {
    aliases: ['kimi', 'moonshot', 'kimi-for-coding'],
    baseUrlEnv: 'KIMI_BASE_URL',
    quirks: { echoReasoningContent: true },
    defaultMaxTokens: 32_000,
    defaultModel: 'kimi-k2-0905-preview',
  }),
  chat('kimi-coding-cn', 'Kimi / Moonshot (China)', 'https://api.moonshot.cn/v1', ['KIMI_CN_API_KEY'], {
    aliases: ['kimi-cn', 'moonshot-cn'],
    quirks: { echoReasoningContent: true },
    defaultModel: 'kimi-k2-0905-preview',
  }),
  chat('stepfun', 'StepFun', 'https://api.stepfun.com/v1', ['STEPFUN_API_KEY'], {
    aliases: ['step'],
    baseUrlEnv: 'STEPFUN_BASE_URL',
  }),
  chat('arcee', 'Arcee AI', 'https://api.arcee.ai/api/v1', ['ARCEEAI_API_KEY'], {
    aliases: ['arcee-ai', 'arceeai'],
    baseUrlEnv: 'ARCEE_BASE_URL',
  }),
  chat('gmi', 'GMI Cloud', 'https://api.gmi-serving.com/v1', ['GMI_API_KEY'], {
    aliases: ['gmi-cloud', 'gmicloud'],
    baseUrlEnv: 'GMI_BASE_URL',
  }),
  {
    id: 'minimax',
    name: 'MiniMax',
    aliases: ['minimax-global'],
    apiMode: 'anthropic_messages',
    baseUrl: 'https://api.minimax.io/anthropic',
    baseUrlEnv: 'MINIMAX_BASE_URL',
    keyEnvs: ['MINIMAX_API_KEY'],
    quirks: {},
    defaultModel: 'MiniMax-M2',
    modelsPath: '/v1/models',
  },
  {
    id: 'anthropic',
    name: 'Anthropic',
    aliases: ['claude', 'claude-code'],
    apiMode: 'anthropic_messages',
    baseUrl: 'https://api.anthropic.com',
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    keyEnvs: ['ANTHROPIC_API_KEY', 'ANTHROPIC_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    quirks: {},
    defaultModel: 'claude-sonnet-4-5',
    modelsPath: '/v1/models',
  },
  chat('alibaba', 'Alibaba Cloud (DashScope)', 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', ['DASHSCOPE_API_KEY'], {
    aliases: ['dashscope', 'qwen'],
    baseUrlEnv: 'DASHSCOPE_BASE_URL',
  }),
  {
    id: 'minimax-cn',
    name: 'MiniMax (China)',
    aliases: ['minimax-china', 'minimax_cn'],
    apiMode: 'anthropic_messages',
    baseUrl: 'https://api.minimaxi.com/anthropic',
    baseUrlEnv: 'MINIMAX_CN_BASE_URL',
    keyEnvs: ['MINIMAX_CN_API_KEY'],
    quirks: {},
    defaultModel: 'MiniMax-M2',
    modelsPath: '/v1/models',
  },
  chat('deepseek', 'DeepSeek', 'https://api.deepseek.com/v1', ['DEEPSEEK_API_KEY'], {
    baseUrlEnv: 'DEEPSEEK_BASE_URL',
    quirks: { echoReasoningContent: true },
    defaultModel: 'deepseek-chat',
  }),
  chat('xai', 'xAI', 'https://api.x.ai/v1', ['XAI_API_KEY'], {
    aliases: ['grok', 'x-ai', 'x.ai'],
    baseUrlEnv: 'XAI_BASE_URL',
    defaultModel: 'grok-4',
  }),
  chat('nvidia', 'NVIDIA NIM', 'https://integrate.api.nvidia.com/v1', ['NVIDIA_API_KEY'], {
    aliases: ['nim'],
    baseUrlEnv: 'NVIDIA_BASE_URL',
    defaultMaxTokens: 16_384,
  }),
  chat('ai-gateway', 'Vercel AI Gateway', 'https://ai-gateway.vercel.sh/v1', ['AI_GATEWAY_API_KEY'], {
    aliases: ['vercel', 'aigateway', 'vercel-ai-gateway'],
    baseUrlEnv: 'AI_GATEWAY_BASE_URL',
    keyHost: 'ai-gateway.vercel.sh',
    defaultHeaders: ATTRIBUTION,
  }),
  chat('opencode-zen', 'OpenCode Zen', 'https://opencode.ai/zen/v1', ['OPENCODE_ZEN_API_KEY'], {
    aliases: ['opencode', 'zen'],
    baseUrlEnv: 'OPENCODE_ZEN_BASE_URL',
  }),
  chat('opencode-go', 'OpenCode Go', 'https://opencode.ai/zen/go/v1', ['OPENCODE_GO_API_KEY'], {
    aliases: ['opencode-go-sub'],
    baseUrlEnv: 'OPENCODE_GO_BASE_URL',
  }),
  chat('kilocode', 'Kilo Code', 'https://api.kilo.ai/api/gateway', ['KILOCODE_API_KEY'], {
    aliases: ['kilo', 'kilo-code', 'kilo-gateway'],
    baseUrlEnv: 'KILOCODE_BASE_URL',
  }),
  chat('huggingface', 'Hugging Face', 'https://router.huggingface.co/v1', ['HF_TOKEN'], {
    aliases: ['hf', 'hugging-face', 'huggingface-hub'],
    baseUrlEnv: 'HF_BASE_URL',
  }),
  chat('xiaomi', 'Xiaomi MiMo', 'https://api.xiaomimimo.com/v1', ['XIAOMI_API_KEY'], {
    aliases: ['mimo', 'xiaomi-mimo'],
    baseUrlEnv: 'XIAOMI_BASE_URL',
    quirks: { echoReasoningContent: true },
  }),
  chat('tencent-tokenhub', 'Tencent TokenHub', 'https://tokenhub.tencentmaas.com/v1', ['TOKENHUB_API_KEY'], {
    aliases: ['tencent', 'tokenhub', 'tencent-cloud', 'tencentmaas'],
    baseUrlEnv: 'TOKENHUB_BASE_URL',
  }),
  chat('ollama-cloud', 'Ollama Cloud', 'https://ollama.com/v1', ['OLLAMA_API_KEY'], {
    aliases: ['ollama_cloud'],
    baseUrlEnv: 'OLLAMA_BASE_URL',
  }),
  // Not auto-detected: their keys are common for other purposes (OAuth sign-in, GitHub tokens,
  // Mistral/Groq keys used for speech), or the server may simply be offline (LM Studio).
  {
    id: 'openai-codex',
    name: 'OpenAI Codex',
    aliases: ['codex'],
    apiMode: 'codex_responses',
    baseUrl: 'https://chatgpt.com/backend-api/codex',
    baseUrlEnv: 'HERMES_CODEX_BASE_URL',
    keyEnvs: [],
    quirks: { noSamplingParams: true },
    defaultModel: 'gpt-5-codex',
    autoDetect: false,
  },
  // Qwen OAuth: the Qwen Code sign-in (~/.qwen/oauth_creds.json), see src/auth/oauth/qwen.ts.
  chat('qwen-oauth', 'Qwen OAuth', 'https://portal.qwen.ai/v1', [], {
    aliases: ['qwen-code', 'qwen-portal'],
    baseUrlEnv: 'HERMES_QWEN_BASE_URL',
    autoDetect: false,
    defaultMaxTokens: 65_536,
  }),
  chat('copilot', 'GitHub Copilot', 'https://api.githubcopilot.com', ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'], {
    aliases: ['github', 'github-copilot', 'github-models'],
    baseUrlEnv: 'COPILOT_API_BASE_URL',
    defaultHeaders: { 'Copilot-Integration-Id': 'vscode-chat', 'Editor-Version': 'vscode/1.99.0' },
    autoDetect: false,
  }),
  chat('mistral', 'Mistral', 'https://api.mistral.ai/v1', ['MISTRAL_API_KEY'], {
    baseUrlEnv: 'MISTRAL_BASE_URL',
    quirks: { stripReasoning: true },
    autoDetect: false,
  }),
  chat('groq', 'Groq', 'https://api.groq.com/openai/v1', ['GROQ_API_KEY'], {
    baseUrlEnv: 'GROQ_BASE_URL',
    quirks: { stripReasoning: true },
    autoDetect: false,
  }),
  chat('lmstudio', 'LM Studio', 'http://localhost:1234/v1', ['LM_API_KEY'], {
    aliases: ['lm-studio', 'lm_studio'],
    baseUrlEnv: 'LM_BASE_URL',
    quirks: { noKeyRequired: true },
    autoDetect: false,
  }),
  chat('custom', 'Custom endpoint', '', ['OPENAI_API_KEY'], {
    aliases: ['ollama', 'vllm', 'llamacpp', 'llama.cpp', 'llama-cpp', 'local'],
    baseUrlEnv: 'OPENAI_BASE_URL',
    autoDetect: false,
    isCustom: true,
    // Without a cap some servers stop after a few hundred tokens (an Ollama model's num_predict).
    defaultMaxTokens: 65_536,
  }),
];

/** Default endpoints for the local-server aliases of `custom` when no base URL is configured. */
export const LOCAL_SERVER_DEFAULTS: Record<string, string> = {
  ollama: 'http://localhost:11434/v1',
  vllm: 'http://localhost:8000/v1',
  llamacpp: 'http://localhost:8080/v1',
  'llama.cpp': 'http://localhost:8080/v1',
  'llama-cpp': 'http://localhost:8080/v1',
};

const BY_NAME = new Map<string, ProviderSpec>();
for (const p of PROVIDERS) {
  BY_NAME.set(p.id, p);
  for (const a of p.aliases) if (!BY_NAME.has(a)) BY_NAME.set(a, p);
}

/** The provider with this id or alias (case-insensitive), or undefined. */
export function findProvider(idOrAlias: string): ProviderSpec | undefined {
  return BY_NAME.get(idOrAlias.trim().toLowerCase());
}

/** Ids of every built-in provider, for error messages and pickers. */
export const providerIds = (): string[] => PROVIDERS.map((p) => p.id);

/** The host of a URL, lowercased without a trailing dot; '' when unparsable. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '').replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

/** True when `url`'s host is `host` or one of its subdomains (never a look-alike like `host.evil.test`). */
export function hostMatches(url: string, host: string): boolean {
  const h = hostOf(url);
  return h === host || h.endsWith(`.${host}`);
}

/** Loopback, private-network and `.local` hosts: servers that often run without a key. */
export function isLocalUrl(url: string): boolean {
  const h = hostOf(url);
  if (!h) return false;
  if (h === 'localhost' || h === '::1' || h === '0.0.0.0' || h.endsWith('.localhost') || h.endsWith('.local')) return true;
  if (h === 'host.docker.internal') return true;
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) || (a === 169 && b === 254);
  }
  return /^f[cd][0-9a-f]{2}:/.test(h) || h.startsWith('fe80:');
}

/** The wire a base URL implies, if any: Anthropic's host or an `/anthropic` path → Messages API. */
export function detectApiModeForUrl(baseUrl: string): ApiMode | undefined {
  const h = hostOf(baseUrl);
  if (!h) return undefined;
  if (h === 'api.anthropic.com') return 'anthropic_messages';
  let path = '';
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, '').toLowerCase();
  } catch {
    return undefined;
  }
  if (path.endsWith('/anthropic') || path.endsWith('/anthropic/v1')) return 'anthropic_messages';
  if (h === 'api.kimi.com' && path.includes('/coding')) return 'anthropic_messages';
  if (h === 'chatgpt.com' && path.includes('/backend-api/codex')) return 'codex_responses';
  return undefined;
}

/** Canonical api_mode for a config value (`openai`/`chat` → chat_completions, `responses` → codex_responses, `anthropic` → anthropic_messages). */
export function canonicalApiMode(raw: string | undefined | null): ApiMode | undefined | null {
  const v = (raw ?? '').trim().toLowerCase().replace(/-/g, '_');
  if (!v || v === 'auto') return undefined;
  if (['chat_completions', 'chat', 'openai', 'openai_chat', 'completions'].includes(v)) return 'chat_completions';
  if (['codex_responses', 'responses', 'openai_responses', 'codex'].includes(v)) return 'codex_responses';
  if (['anthropic_messages', 'anthropic', 'messages'].includes(v)) return 'anthropic_messages';
  return null;
}
