// Real mail servers on loopback for email tests: Dovecot (IMAP, Debian's dovecot-imapd, run in the
// foreground with a throwaway config) and smtp-server (SMTP, in process). Tests skip with a reason
// when Dovecot is not installed.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.ts';

export const DOVECOT = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((p) => existsSync(p)) ?? null;


async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), r(true)));
      s.once('error', () => r(false));
    });
    if (ok) return;
    if (performance.now() > deadline) throw new Error(`nothing listening on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Imapd {
  port: number;
  users: Record<string, string>;
  dir: string;
  stop(): Promise<void>;
}

export async function startDovecot(users: Record<string, string>): Promise<Imapd> {
  if (!DOVECOT) throw new Error('dovecot is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'hermes-imapd-'));
  chmodSync(dir, 0o755);
  for (const d of ['run', 'state', 'mail']) mkdirSync(join(dir, d));
  chmodSync(join(dir, 'mail'), 0o777);
  writeFileSync(join(dir, 'passwd'), Object.entries(users).map(([u, p]) => `${u}:{PLAIN}${p}`).join('\n') + '\n', { mode: 0o644 });
  const port = await freePort();
  const root = process.getuid?.() === 0;
  const me = userInfo();
  const uid = root ? 65534 : me.uid;
  const gid = root ? 65534 : me.gid;
  const conf = `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = ${uid}
last_valid_uid = ${uid}
first_valid_gid = ${gid}
default_internal_user = ${root ? 'dovecot' : me.username}
default_login_user = ${root ? 'dovenull' : me.username}
${root ? '' : `default_internal_group = ${me.username}\n`}passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${uid} gid=${gid} home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
`;
  writeFileSync(join(dir, 'dovecot.conf'), conf);
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  await waitForPort(port, 10_000);
  return {
    port,
    users,
    dir,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  body: string;
}

export interface Smtpd {
  port: number;
  mails: CapturedMail[];
  waitFor(pred: (m: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  stop(): Promise<void>;
}

function parse(raw: string): { headers: Record<string, string>; body: string } {
  const i = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, i).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const c = line.indexOf(':');
    if (c > 0) headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
  }
  let body = raw.slice(i + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) body = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return { headers, body };
}

export async function startSmtp(): Promise<Smtpd> {
  const { SMTPServer } = await import('smtp-server');
  const mails: CapturedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth: (_auth, _session, cb) => cb(null, { user: 'agent' }),
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw, ...parse(raw) });
        for (const w of [...waiters]) w();
        cb();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    mails,
    waitFor: (pred, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = mails.find(pred);
          if (m) {
            waiters.delete(check);
            clearTimeout(t);
            resolve(m);
          }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching mail; got:\n${mails.map((m) => `${m.to.join(',')} ${m.headers.subject}`).join('\n')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
