// What the chat process and the dashboard say over the event sidecar (event-link.ts): types only,
// free of Node's types, so the dashboard's web app reads them too (src/dashboard/api-types.ts).
import type { ApprovalChoice } from '../agent/types.ts';

export type SidecarRequest =
  | { kind: 'approval'; command: string; description: string; choices: ApprovalChoice[] }
  | { kind: 'clarify'; question: string; choices: string[] }
  | { kind: 'secret'; name: string; prompt: string };

/** Chat process → dashboard. */
export type SidecarEvent =
  | { type: 'hello'; secret: string; pid: number; sessionId: string; model: string; provider: string; cwd: string }
  | { type: 'turn_start'; sessionId: string; text: string }
  | { type: 'model'; model: string; provider: string }
  | { type: 'tool_start'; callId: string; name: string; emoji: string; detail: string; args: string }
  | { type: 'tool_end'; callId: string; name: string; isError: boolean; durationMs: number; preview: string }
  | { type: 'request'; id: string; request: SidecarRequest }
  | { type: 'request_resolved'; id: string; source: string; answer: string }
  | { type: 'usage'; model: string; provider: string; input: number; output: number; costUsd: number | null }
  | { type: 'turn_end'; completed: boolean; failed: boolean; interrupted: boolean; apiCalls: number; error?: string };

/** Dashboard → chat process. */
export type SidecarCommand = { type: 'answer'; id: string; value: unknown };
