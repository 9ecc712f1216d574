// Codex's server-initiated requests, answered through Hermes: command and file-change approvals
// go to the person through the surface (REPL prompt, gateway buttons, ACP permission request) as
// ordinary approval requests; Hermes's hardline blocks and approvals.deny rules decline first;
// --yolo accepts; nobody to ask → the unattended policy (cron_mode / single_query_mode /
// unattended_mode), else decline. Permission escalations are always declined, MCP elicitations
// for our own hermes-tools server are accepted (other servers' tool calls are approvals for the
// person), and codex's own questions become clarify requests.
import type { AgentRequest, Answered, ApprovalChoice } from '../../agent/types.ts';
import { classifyCommand } from '../../policy/dangerous.ts';
import { unattendedPolicy } from '../../tools/approval.ts';
import type { ToolSession } from '../../tools/types.ts';
import type { ServerRequest } from './protocol/ServerRequest.ts';
import type { CommandExecutionApprovalDecision } from './protocol/v2/CommandExecutionApprovalDecision.ts';
import type { CommandExecutionRequestApprovalParams } from './protocol/v2/CommandExecutionRequestApprovalParams.ts';
import type { FileChangeRequestApprovalParams } from './protocol/v2/FileChangeRequestApprovalParams.ts';
import type { McpServerElicitationRequestParams } from './protocol/v2/McpServerElicitationRequestParams.ts';
import type { McpServerElicitationRequestResponse } from './protocol/v2/McpServerElicitationRequestResponse.ts';
import type { PermissionsRequestApprovalResponse } from './protocol/v2/PermissionsRequestApprovalResponse.ts';
import type { ToolRequestUserInputParams } from './protocol/v2/ToolRequestUserInputParams.ts';
import type { ToolRequestUserInputResponse } from './protocol/v2/ToolRequestUserInputResponse.ts';

export const HERMES_TOOLS_SERVER = 'hermes-tools';

export interface BridgeDeps {
  /** Asks the person (the session's broker, bound to the running turn's signal). */
  ask<R extends AgentRequest>(req: R): Promise<Answered<R>>;
  services: Pick<ToolSession, 'yolo' | 'config' | 'platform' | 'depth'>;
  /** The session's working directory (shown when codex omits the command's cwd). */
  cwd: string;
  /** The change summary of a fileChange item seen in item/started ("1 add: a.txt"), by item id. */
  fileChange(itemId: string): string | undefined;
  /** A line for the person (declines they did not choose, e.g. a hardline block). */
  warn(message: string): void;
}

type Decision = Extract<CommandExecutionApprovalDecision, string>;

/** Hermes's approval answer → codex's decision: once → accept, session/always → acceptForSession, else decline. */
export function decisionFor(answer: ApprovalChoice | string | null | undefined): Decision {
  if (answer === 'once') return 'accept';
  if (answer === 'session' || answer === 'always') return 'acceptForSession';
  return 'decline';
}

const CHOICES: ApprovalChoice[] = ['once', 'session', 'deny'];

/** Asks (or applies policy) and maps the answer to a codex decision. */
async function decide(deps: BridgeDeps, command: string, description: string): Promise<Decision> {
  if (deps.services.yolo) return 'accept';
  const { answer, source } = await deps.ask({ kind: 'approval', command, description, choices: CHOICES });
  if (source === 'no_responder') return unattendedPolicy(deps.services) === 'approve' ? 'accept' : 'decline';
  return decisionFor(answer);
}

async function commandApproval(deps: BridgeDeps, p: CommandExecutionRequestApprovalParams): Promise<{ decision: Decision }> {
  const inner = (p.commandActions ?? []).map((a) => a.command).filter(Boolean);
  const command = p.command || inner.join(' && ') || '(codex did not say which command)';
  const deny = (deps.services.config.approvals?.deny ?? []) as string[];
  for (const c of [command, ...inner]) {
    const v = classifyCommand(c, { deny, cwd: p.cwd || deps.cwd || undefined });
    if (v.action === 'block') {
      deps.warn(`Declined codex's request to run \`${command.slice(0, 200)}\`: ${v.description}.`);
      return { decision: 'decline' };
    }
  }
  const where = p.cwd || deps.cwd || '<unknown>';
  const description = `Codex wants to run this in ${where}${p.reason ? ` — ${p.reason}` : ''}`;
  return { decision: await decide(deps, command, description) };
}

async function fileChangeApproval(deps: BridgeDeps, p: FileChangeRequestApprovalParams): Promise<{ decision: Decision }> {
  const summary = deps.fileChange(p.itemId);
  const detail = summary ?? p.reason ?? 'files in the workspace';
  const why = [p.reason, p.grantRoot ? `grants write access to ${p.grantRoot}` : null].filter(Boolean).join('; ');
  return { decision: await decide(deps, `apply_patch: ${detail}`, `Codex wants to change files${why ? ` — ${why}` : ''}`) };
}

/**
 * MCP elicitations: codex asks before an MCP tool call. Our own hermes-tools server is accepted
 * (enabling the runtime opted into it); another server's tool call is an approval for the person
 * ("session" is remembered by codex). Other elicitations (forms asking for data, URLs) are declined:
 * Hermes's surfaces cannot render them.
 */
async function elicitation(deps: BridgeDeps, p: McpServerElicitationRequestParams): Promise<McpServerElicitationRequestResponse> {
  if (p.serverName === HERMES_TOOLS_SERVER) return { action: 'accept', content: {}, _meta: null };
  const meta = (p._meta ?? {}) as { codex_approval_kind?: string; tool_name?: string; tool_params?: unknown };
  if (meta.codex_approval_kind !== 'mcp_tool_call') {
    deps.warn(`Declined a request from MCP server ${p.serverName}: ${'message' in p ? p.message : 'it asked for input'} (Hermes cannot show MCP forms).`);
    return { action: 'decline', content: null, _meta: null };
  }
  const args = JSON.stringify(meta.tool_params ?? {});
  const decision = await decide(deps, `mcp.${p.serverName}.${meta.tool_name ?? '?'}(${args.length > 300 ? `${args.slice(0, 300)}…` : args})`, `Codex wants to call a tool of the MCP server "${p.serverName}"`);
  if (decision === 'decline') return { action: 'decline', content: null, _meta: null };
  return { action: 'accept', content: {}, _meta: decision === 'acceptForSession' ? { persist: 'session' } : null };
}

async function userInput(deps: BridgeDeps, p: ToolRequestUserInputParams): Promise<ToolRequestUserInputResponse> {
  const answers: ToolRequestUserInputResponse['answers'] = {};
  for (const q of p.questions) {
    if (q.isSecret) {
      const { answer } = await deps.ask({ kind: 'secret', name: q.header || q.id, prompt: q.question });
      answers[q.id] = { answers: answer ? [answer] : [] };
      continue;
    }
    const { answer } = await deps.ask({ kind: 'clarify', question: q.header ? `${q.header}: ${q.question}` : q.question, choices: q.options?.map((o) => o.label) });
    answers[q.id] = { answers: answer ? [answer] : [] };
  }
  return { answers };
}

/** The handler the transport calls for each server request; undefined = not ours (→ -32601). */
export function serverRequestHandler(deps: BridgeDeps): (req: ServerRequest) => Promise<unknown> | undefined {
  return (req) => {
    switch (req.method) {
      case 'item/commandExecution/requestApproval':
        return commandApproval(deps, req.params);
      case 'item/fileChange/requestApproval':
        return fileChangeApproval(deps, req.params);
      case 'item/permissions/requestApproval': {
        // Escalating the permission profile mid-turn is declined: the person chose it in config.toml.
        deps.warn(`Declined codex's request for more permissions${req.params.reason ? ` (${req.params.reason})` : ''}; change default_permissions in config.toml to allow it.`);
        const none: PermissionsRequestApprovalResponse = { permissions: {}, scope: 'turn' };
        return Promise.resolve(none);
      }
      case 'mcpServer/elicitation/request':
        return elicitation(deps, req.params);
      case 'item/tool/requestUserInput':
        return userInput(deps, req.params);
      default:
        return undefined;
    }
  };
}
