// `hermes debug share --nous`: the debug bundle goes to Nous's private diagnostics storage instead of
// a public paste. As in Hermes: POST {base}/api/diagnostics/upload-url with the gzipped size, then PUT
// the gzip (a JSON envelope `hermes-debug-share/1` holding the files) to the signed URL it returns.
// The base is HERMES_DIAGNOSTICS_BASE_URL, else config `debug.diagnostics_base_url`, else Nous's portal.
import { gzipSync } from 'node:zlib';
import { buildShareBundle } from '../session/diagnostics.ts';
import { assertPublicUrl } from '../state/skills-hub.ts';
import type { CliContext } from './context.ts';
import { CliError } from './errors.ts';

const DEFAULT_BASE = 'https://portal.nousresearch.com';
const USER_AGENT = 'hermes-agent/debug-share';

export const NOUS_NOTICE = [
  '--nous: the debug bundle goes to Nous-internal storage, not a public paste service. It holds:',
  '  • system info (OS, versions, provider, which API keys are configured — never the keys)',
  '  • full agent.log, gateway.log and errors.log (up to 512 KB each; likely conversation content, tool output, file paths)',
  'Only Nous staff can open it, through a sign-in gated viewer; it is deleted after 14 days.',
].join('\n');

export function diagnosticsBase(ctx: CliContext): string {
  const cfg = (ctx.loaded.config.debug ?? {}) as { diagnostics_base_url?: string };
  return (ctx.env.HERMES_DIAGNOSTICS_BASE_URL || cfg.diagnostics_base_url || DEFAULT_BASE).replace(/\/+$/, '');
}

export async function shareToNous(ctx: CliContext, o: { lines: number; redact: boolean }, out: (...lines: string[]) => void): Promise<void> {
  const files = buildShareBundle({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, lines: o.lines, redact: o.redact });
  const envelope = { format: 'hermes-debug-share/1', redacted: o.redact, created: new Date().toISOString(), files };
  const blob = gzipSync(Buffer.from(JSON.stringify(envelope), 'utf8'));
  const base = diagnosticsBase(ctx);
  const allowPrivate = ctx.loaded.config.security?.allow_private_urls === true;
  const fail = (why: string): never => {
    throw new CliError(`Nous upload failed: ${why}. Run \`hermes debug share --local\` to print the report instead, or \`hermes debug share\` to upload to a public paste service.`);
  };
  try {
    await assertPublicUrl(base, allowPrivate);
  } catch (e) {
    fail((e as Error).message);
  }
  out('Uploading to Nous diagnostics storage...');
  const res = await fetch(`${base}/api/diagnostics/upload-url`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT },
    body: JSON.stringify({ contentType: 'application/gzip', sizeBytes: blob.length }),
    signal: AbortSignal.timeout(30_000),
  }).catch((e: Error) => fail(`could not reach ${base} (${e.message})`));
  const text = await res.text();
  if (!res.ok) fail(`${base} answered HTTP ${res.status}`);
  let info: { uploadUrl?: string; viewUrl?: string; view_url?: string; id?: string; expiresAt?: string; expires_at?: string };
  try {
    info = JSON.parse(text);
  } catch {
    return fail(`${base} did not answer JSON`);
  }
  if (!info.uploadUrl) fail(`${base} returned no upload URL`);
  const uploadUrl = info.uploadUrl as string;
  try {
    await assertPublicUrl(uploadUrl, allowPrivate);
  } catch (e) {
    fail((e as Error).message);
  }
  const put = await fetch(uploadUrl, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/gzip', 'User-Agent': USER_AGENT },
    body: blob,
    signal: AbortSignal.timeout(120_000),
  }).catch((e: Error) => fail(`the upload did not go through (${e.message})`));
  if (!put.ok) fail(`the upload was refused (HTTP ${put.status})`);
  out('', 'Debug bundle uploaded to Nous (private):');
  const view = info.viewUrl || info.view_url;
  out(view ? `  View URL  ${view}` : `  (no view URL returned; upload id: ${info.id ?? '?'})`);
  const expires = info.expiresAt || info.expires_at;
  out('', expires ? `Auto-deletes at ${expires} (14-day retention).` : 'Auto-deletes after 14 days.');
  out('', 'Share this private link with the Nous team; only Nous staff can open it.');
}
