// A speech-to-text provider: one file each (openai.ts holds OpenAI and Groq, which share a wire
// format; local.ts the engines that run here), registered in index.ts.

/** `stt:` from config.yaml. */
export type SttConfig = Record<string, unknown> & { provider?: string; enabled?: unknown; language?: string };

export interface SttRequest {
  /** The audio file (ogg/opus voice notes, mp3, m4a, wav, webm…). */
  path: string;
  config: SttConfig;
  env: NodeJS.ProcessEnv;
  language?: string;
  signal?: AbortSignal;
}

export interface SttProvider {
  name: string;
  /** Runs on this machine (no upload, no size cap). */
  local: boolean;
  unavailable(env: NodeJS.ProcessEnv, config: SttConfig): string | null;
  transcribe(req: SttRequest): Promise<string>;
}

export { configSection as sttSection } from '../providers.ts';
