// Files a command writes, edits or deletes: block devices, system files, credentials and login
// files under $HOME, Hermes's own control files under HERMES_HOME, and project .env/config files.
import { hermesControlPath, homeSensitivePath } from '../protected-paths.ts';
import type { Redirect } from '../shell-parse.ts';
import { canonPath, DYN, type Scope } from './context.ts';
import { wordText } from './expand.ts';
import { addFinding, F } from './findings.ts';

export const BLOCK_DEVICE = /^\/dev\/(?:(?:sd|hd|vd|xvd|nvme|mmcblk|md|dm-|loop|nbd|sr)[a-z0-9]*$|r?disk\d|mapper\/|disk\/by-(?:id|uuid|path|label|partuuid|partlabel)\/)/;
const SYSTEM_WRITE = /^\/(?:etc|boot|private\/(?:etc|var|tmp|home))(?:\/|$)|^\/(?:usr\/(?:s?bin|lib|libexec)|s?bin|lib(?:32|64)?|var\/spool\/cron)\//;

/**
 * How a command touches a file: `create` replaces or creates it (redirect, tee, cp/mv/install
 * onto it), `edit` changes it in place (sed -i, perl -i, truncate), `delete` removes it.
 */
export type WriteKind = 'create' | 'edit' | 'delete';

const ENV_NAME = /^\.env(?:\.[^/]+)?$|^\.envrc$/;
const CONFIG_NAME = /^config\.ya?ml$/;

/** The project secret/config file rule: the file name decides, not the verb. */
function projectSecret(c: string): boolean {
  const parts = c.split('/');
  const name = parts[parts.length - 1];
  if (ENV_NAME.test(name) || CONFIG_NAME.test(name)) return true;
  return parts.length >= 2 && parts[parts.length - 2] === 'config' && /\.ya?ml$/.test(name);
}

/** Records what writing `t` means. */
export function checkWriteTarget(t: string, scope: Scope, kind: WriteKind = 'create'): void {
  if (!t || t.includes(DYN)) return;
  if (kind !== 'delete' && BLOCK_DEVICE.test(t)) return addFinding(scope.findings, F.ddDevice);
  const c = canonPath(t, scope);
  if (c === null) return;
  if (c.startsWith('@H')) {
    const what = hermesControlPath(c.slice(2));
    if (what) addFinding(scope.findings, F.selfWrite(what === '.env' ? 'secrets (.env)' : what));
    return;
  }
  if (c === '~' || c.startsWith('~/')) {
    if (homeSensitivePath(c.slice(2))) addFinding(scope.findings, F.sensitiveWrite);
    else if (kind === 'create' && projectSecret(c)) addFinding(scope.findings, F.projectSecret);
    return;
  }
  if (/^\/(root|home\/[^/]+)\/\.ssh(\/|$)/.test(c)) return addFinding(scope.findings, F.sensitiveWrite);
  if (kind !== 'delete' && SYSTEM_WRITE.test(c)) return addFinding(scope.findings, F.etcWrite);
  if (kind === 'create' && projectSecret(c)) addFinding(scope.findings, F.projectSecret);
}

const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

export function checkRedirects(redirects: Redirect[], scope: Scope): void {
  for (const r of redirects) {
    if (!r.target) continue;
    if (r.heredoc) continue; // the body is data for the command (stdinTexts reads it)
    const t = wordText(r.target, scope);
    if (WRITE_REDIRECTS.has(r.op) || (r.op === '>&' && !/^\d+$|^-$/.test(t))) checkWriteTarget(t, scope);
  }
}

