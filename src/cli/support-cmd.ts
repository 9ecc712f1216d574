// `hermes dump` and `hermes debug share`: what to paste when asking for help.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDebugReport, buildDump } from '../session/diagnostics.ts';
import { assertPublicUrl } from '../state/skills-hub.ts';
import { expandHome, paths } from '../state/paths.ts';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';

const out = (...lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);

export function dump(opts: { showKeys?: boolean }): void {
  const ctx = loadContext();
  out(buildDump({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, showKeys: !!opts.showKeys }));
}

/** Asks on the terminal before an upload; without one, --yes is required. */
async function confirmUpload(where: string, question: string | (() => string)): Promise<void> {
  if (!process.stdin.isTTY) throw new CliError(`Uploading the report to ${where} needs --yes when there is no terminal to ask (or use --local to print it). Nothing was uploaded.`, 2);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const a = (await rl.question(typeof question === 'string' ? question : question())).trim().toLowerCase();
  rl.close();
  if (a !== 'y' && a !== 'yes') throw new CliError('Not uploaded.', 1);
}

export async function debugShare(opts: { lines?: string; expire?: string; local?: boolean; yes?: boolean; redact?: boolean; output?: string; nous?: boolean }): Promise<void> {
  const ctx = loadContext();
  const lines = opts.lines ? Number(opts.lines) : 200;
  if (!Number.isInteger(lines) || lines < 1) throw new CliError('--lines expects a positive number.', 2);
  const report = buildDebugReport({ home: ctx.home, config: ctx.loaded.config, env: ctx.env, lines, redact: opts.redact !== false });
  if (opts.local || opts.output) {
    if (opts.output) {
      const file = resolve(expandHome(opts.output));
      writeFileSync(file, report, { mode: 0o600 });
      out(`Debug report written to ${file}${opts.redact === false ? ' (NOT redacted)' : ' (secrets redacted)'}.`);
    } else out(report);
    return;
  }
  if (opts.nous) {
    const nous = await import('./debug-nous.ts');
    out(nous.NOUS_NOTICE, '');
    if (!opts.yes) await confirmUpload('Nous', 'Upload debug report? [y/N] ');
    if (opts.redact === false) out('--no-redact is set: secrets in your logs will NOT be redacted before upload.', '');
    await nous.shareToNous(ctx, { lines, redact: opts.redact !== false }, out);
    return;
  }
  const debugCfg = (ctx.loaded.config.debug ?? {}) as { paste_url?: string };
  const pasteUrl = debugCfg.paste_url || 'https://paste.rs';
  if (!opts.yes) {
    const file = join(paths.logs(ctx.home), 'debug-report-preview.txt');
    await confirmUpload(pasteUrl, () => {
      writeFileSync(file, report, { mode: 0o600 });
      return `The report (${report.length.toLocaleString('en-US')} characters, secrets redacted; preview: ${file}) will be uploaded to ${pasteUrl}, public to anyone with the link. Upload? [y/N] `;
    });
  }
  const allowPrivate = ctx.loaded.config.security?.allow_private_urls === true;
  try {
    await assertPublicUrl(pasteUrl, allowPrivate);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const res = await fetch(pasteUrl, { method: 'POST', body: report, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, signal: AbortSignal.timeout(30_000) }).catch((e: Error) => {
    throw new CliError(`Could not reach ${pasteUrl}: ${e.message}. Use --local to print the report instead.`);
  });
  const body = (await res.text()).trim();
  if (!res.ok || !/^https?:\/\//.test(body)) throw new CliError(`${pasteUrl} did not accept the report (HTTP ${res.status}). Use --local to print it instead.`);
  out(`Debug report uploaded: ${body}`);
  out('Share this link with whoever helps you. It stays public until the paste service expires it.');
}
