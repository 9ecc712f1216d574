// The LLM layer's public API. SDKs stay lazy: nothing here imports `openai` or `@anthropic-ai/sdk`
// until an adapter sends its first request.

export * from './types.ts';
export { EventStream, streamFrom } from './event-stream.ts';
export {
  PROVIDERS,
  LOCAL_SERVER_DEFAULTS,
  findProvider,
  providerIds,
  poolIdOf,
  hostOf,
  hostMatches,
  isLocalUrl,
  detectApiModeForUrl,
  canonicalApiMode,
  type ProviderSpec,
  type ProviderQuirks,
} from './catalog.ts';
export {
  resolveRuntime,
  resolveFallbackRuntimes,
  resolveAuxiliaryRuntime,
  envKeys,
  usableSecret,
  ResolveError,
  type ProviderRuntime,
  type ResolveInput,
  type ModelInput,
  type NamedProviderInput,
  type FallbackEntry,
  type AuxiliaryTaskInput,
} from './resolve.ts';
export {
  toProviderError,
  describeError,
  parseRetryAfter,
  extractProviderMessage,
  isContextLengthMessage,
  isRetryableKind,
  redact,
  StaleStreamError,
  StreamCutError,
  InvalidResponseError,
} from './errors.ts';
export { defaultStaleMs, defaultTimeoutMs, envFirstByteMs, type AdapterOptions } from './attempt.ts';
export { ProviderHealth, sharedHealth, targetId, targetLabel, type HealthStore, type HealthTarget, type TargetHealth } from './health.ts';
export { createChatCompletionsStream } from './openai-chat.ts';
export { configuredOutputCap, defaultOutputCap } from './output-cap.ts';
export { createAnthropicStream } from './anthropic.ts';
export { createResponsesStream } from './responses.ts';
export { CredentialPool, exhaustedTtlMs, STRATEGIES, type CredentialStatus, type KeyStrategy, type KeyFailure, type PoolCredential, type PoolHooks, type RefreshedToken, type SelectedKey } from './credentials.ts';
export {
  createLlmClient,
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  MAX_RETRY_AFTER_MS,
  type LlmClient,
  type LlmClientOptions,
} from './client.ts';
export { estimateCostUsd, priceFor, normaliseModelId, PRICES, type ModelPrice } from './pricing.ts';
export {
  contextLengthFor,
  listModels,
  servedModels,
  knownServedModels,
  ModelListError,
  DEFAULT_CONTEXT_LENGTH,
  MODEL_LIST_TIMEOUT_MS,
  type ModelInfo,
} from './models.ts';
