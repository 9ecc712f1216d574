// Reading Hermes's own credential files (.env, auth.json, .anthropic_oauth.json, mcp-tokens/, also a
// profile's) through read_file or search_files asks a person first. Values are still shown masked
// when allowed; with nobody to answer the read is denied (approvals.*_mode: approve and --yolo
// apply as they do to commands).
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { secretFileMatcher, type WriteContext } from '../policy/write-safety.ts';
import { defineSlot } from '../state/slots.ts';
import type { FileOps } from './env/files.ts';
import type { ToolContext, ToolSession } from './types.ts';

export type ReadVerdict = { allowed: true } | { allowed: false; reason: string };

/** The homes whose credential files are guarded, on the machine the files are on. */
export async function secretHomes(s: ToolSession, ops: FileOps): Promise<Pick<WriteContext, 'userHome' | 'hermesHome'>> {
  if (ops.remote) {
    const home = (await ops.home()).replace(/\/$/, '') || '/';
    return { userHome: home, hermesHome: `${home}/.hermes` };
  }
  return { userHome: s.env.HOME || homedir(), hermesHome: s.home };
}

/** A matcher for Hermes credential files on the machine the file tools work on. */
export async function secretMatcher(s: ToolSession, ops: FileOps): Promise<ReturnType<typeof secretFileMatcher>> {
  return secretFileMatcher(await secretHomes(s, ops), { local: !ops.remote });
}

/** Whether a local path is a Hermes credential file (for readers other than read_file, e.g. an editor's buffer). */
export function isLocalSecretFile(s: ToolSession, path: string): boolean {
  try {
    return secretFileMatcher({ userHome: s.env.HOME || homedir(), hermesHome: s.home })(realpathSync(path), statSync(path)) !== null;
  } catch {
    return false;
  }
}

/** Credential files a person let this session read. */
const approvedSlot = defineSlot('secret_reads_approved', () => new Set<string>());

/** Asks whether `tool` may read the credential file(s) `files`. */
export async function approveSecretRead(ctx: ToolContext, tool: string, files: string[]): Promise<ReadVerdict> {
  const s = ctx;
  if (s.yolo) return { allowed: true };
  const approved = s.slot(approvedSlot);
  if (files.every((f) => approved.has(f))) return { allowed: true };
  const list = files.join(', ');
  const approval = await import('./approval.ts');
  const { answer, source } = await ctx.ask({
    kind: 'approval',
    command: `${tool} ${list}`,
    description: `read Hermes's credential file${files.length > 1 ? 's' : ''} (API keys, tokens); the values are shown masked`,
    choices: ['once', 'session', 'deny'],
  });
  if (source === 'no_responder' && approval.unattendedPolicy(s) === 'approve') return { allowed: true };
  if (answer === 'once' || answer === 'session') {
    if (answer === 'session') for (const f of files) approved.add(f);
    return { allowed: true };
  }
  const why = approval.deniedBecause(source);
  return {
    allowed: false,
    reason: `BLOCKED: ${list} holds Hermes's credentials (API keys, tokens); reading it needs the user's approval and ${why}. Do not try to read it another way (terminal, execute_code). If you need to know whether a key is set, ask the user, or use \`hermes config\` / \`hermes auth status\` output they share.`,
  };
}
