// `hermes whatsapp`: set up the WhatsApp (Baileys) bridge and pair it as a linked device. Asks for
// the mode and who may talk to the agent (or takes --mode / --allowed-users), writes WHATSAPP_* to
// .env, then shows the pairing QR code in the terminal until the phone scans it (WhatsApp →
// Settings → Linked devices → Link a device). The session is kept in HERMES_HOME/whatsapp/session.
import { rmSync } from 'node:fs';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { updateEnvFile } from '../state/env.ts';
import { paths } from '../state/paths.ts';
import { defaultSocket, sessionDir, type WaSocketLike } from '../gateway/platforms/whatsapp.ts';
import { phoneOf } from '../gateway/platforms/whatsapp-common.ts';

export interface PairOptions {
  home: string;
  /** Builds a socket on the session folder (tests pass a fake). */
  makeSocket: (dir: string) => Promise<WaSocketLike>;
  /** Shows a QR payload to the person. */
  showQr: (qr: string) => void;
  say: (line: string) => void;
  timeoutMs?: number;
}

/**
 * Connects until WhatsApp says `open`. Right after a scan WhatsApp closes the socket with 515
 * ("restart required"): a new socket on the same session then opens as the paired device.
 */
export async function pairWhatsApp(o: PairOptions): Promise<{ phone: string }> {
  const deadline = performance.now() + (o.timeoutMs ?? 180_000);
  for (let attempt = 0; attempt < 5; attempt++) {
    const sock = await o.makeSocket(sessionDir(o.home));
    const result = await new Promise<'open' | 'restart' | Error>((resolve) => {
      const timer = setTimeout(() => resolve(new Error('no scan within the time limit; run `hermes whatsapp` again')), Math.max(1, deadline - performance.now()));
      timer.unref?.();
      sock.ev.on('connection.update', (u: { connection?: string; qr?: string; lastDisconnect?: { error?: { output?: { statusCode?: number }; message?: string } } }) => {
        if (u.qr) o.showQr(u.qr);
        if (u.connection === 'open') {
          clearTimeout(timer);
          resolve('open');
        } else if (u.connection === 'close') {
          clearTimeout(timer);
          const code = u.lastDisconnect?.error?.output?.statusCode;
          if (code === 515) resolve('restart');
          else if (code === 401) resolve(new Error('WhatsApp refused the link (logged out). Remove the old device on the phone and try again.'));
          else resolve(new Error(`the connection closed (${code ?? '?'}): ${u.lastDisconnect?.error?.message ?? ''}`.trim()));
        }
      });
    });
    if (result === 'open') {
      const phone = phoneOf(sock.user?.id ?? '');
      sock.ev.removeAllListeners?.();
      sock.end(undefined);
      return { phone };
    }
    sock.ev.removeAllListeners?.();
    sock.end(undefined);
    if (result instanceof Error) throw result;
    o.say('Linked; reconnecting once as the new device…');
  }
  throw new Error('WhatsApp kept asking to restart; run `hermes whatsapp` again');
}

export async function whatsappCommand(opts: { mode?: string; allowedUsers?: string; repair?: boolean }): Promise<void> {
  const ctx = loadContext();
  const interactive = !!process.stdin.isTTY;
  let mode = opts.mode;
  let allowed = opts.allowedUsers;
  if (interactive && (!mode || allowed === undefined)) {
    const p = await import('@clack/prompts');
    p.intro('WhatsApp bridge');
    if (!mode) {
      const m = await p.select({ message: 'Which number will Hermes use?', options: [{ value: 'bot', label: 'A separate number for the bot (others message it)' }, { value: 'self-chat', label: 'My own number (I message myself)' }] });
      if (p.isCancel(m)) throw new CliError('cancelled; nothing was written', 1);
      mode = m as string;
    }
    if (allowed === undefined) {
      const a = await p.text({ message: `Who may talk to Hermes? Phone numbers with country code, no + (comma-separated${mode === 'self-chat' ? '; include your own' : ''})`, defaultValue: ctx.env.WHATSAPP_ALLOWED_USERS ?? '', placeholder: ctx.env.WHATSAPP_ALLOWED_USERS ?? '15551234567' });
      if (p.isCancel(a)) throw new CliError('cancelled; nothing was written', 1);
      allowed = String(a);
    }
  }
  mode = mode ?? ctx.env.WHATSAPP_MODE ?? 'bot';
  if (!['bot', 'self-chat'].includes(mode)) throw new CliError(`--mode is bot or self-chat, not "${mode}"`, 2);
  const numbers = (allowed ?? '').split(',').map((x) => x.trim().replace(/^\+/, '')).filter(Boolean);
  const bad = numbers.filter((n) => n !== '*' && !/^\d{6,15}$/.test(n));
  if (bad.length) throw new CliError(`not phone numbers: ${bad.join(', ')} (digits with country code, no + or spaces)`, 2);
  const update: Record<string, string> = { WHATSAPP_ENABLED: 'true', WHATSAPP_MODE: mode };
  if (numbers.length) update.WHATSAPP_ALLOWED_USERS = numbers.join(',');
  updateEnvFile(paths.env(ctx.home), update);
  if (opts.repair) rmSync(sessionDir(ctx.home), { recursive: true, force: true });
  const say = (l: string) => process.stdout.write(l + '\n');
  say('Open WhatsApp on the phone → Settings → Linked devices → Link a device, and scan:');
  // qrcode-terminal ships no types; its one function is declared here.
  const qrt = ((await import('qrcode-terminal' as string)) as { default: { generate(text: string, o: { small: boolean }, cb: (s: string) => void): void } }).default;
  const logLines: string[] = [];
  const { phone } = await pairWhatsApp({
    home: ctx.home,
    makeSocket: (dir) => defaultSocket(dir, (l) => logLines.push(l)),
    showQr: (qr) => qrt.generate(qr, { small: true }, (s) => say(s)),
    say,
  }).catch((e: Error) => {
    throw new CliError(`WhatsApp pairing failed: ${e.message}${logLines.length ? ` (${logLines.slice(-1)[0]})` : ''}`);
  });
  say(`Paired with +${phone} (${mode} mode). Start the gateway: hermes gateway run`);
}
