// `hermes gateway setup` driven through a real PTY, `install`/`uninstall` of the service file,
// and the CLI's errors.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BIN, cleanEnv, hermes, tempHome } from '../helpers/cli.ts';
import { startFakeTelegram } from '../helpers/fake-telegram.ts';
import '../../src/gateway/platforms/builtin.ts';
import { listPlatforms } from '../../src/gateway/platforms/registry.ts';
import { gatedSuite } from '../helpers/skip.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

/** Runs hermes in a PTY; `steps` are [screen pattern, keys to type] in order. */
async function inPty(args: string[], home: string, steps: [RegExp, string][], extraEnv: Record<string, string> = {}): Promise<{ screen: string; code: number }> {
  const pty = await import('@lydell/node-pty');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...cleanEnv(home), ...extraEnv })) if (v !== undefined) env[k] = v;
  const p = pty.spawn(process.execPath, [BIN, ...args], { cwd: home, env, cols: 120, rows: 40 });
  let screen = '';
  let step = 0;
  let seenAt = 0;
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      p.kill();
      reject(new Error(`timed out at step ${step}; screen:\n${screen}`));
    }, 30_000);
    const plain = (x: string) => x.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    p.onData((d) => {
      screen += d;
      while (step < steps.length && steps[step][0].test(plain(screen.slice(seenAt)))) {
        seenAt = screen.length;
        p.write(steps[step][1]);
        step++;
      }
    });
    p.onExit(({ exitCode }) => {
      clearTimeout(t);
      resolve({ screen, code: exitCode });
    });
  });
}

describe('gateway CLI', () => {
  test('setup wizard tests the connection and writes the chosen platforms to .env (0600)', async () => {
    const home = tempHome();
    const tg = await startFakeTelegram();
    try {
      const r = await inPty(
        ['gateway', 'setup'],
        home,
        [
          [/Which platforms/, ' '], // Telegram is first: select it
          [/[◼■◉] Telegram/, '\r'],
          [/Telegram bot token/, '123456:ABC-wrong-token-xxxxxxxxxxxx\r'],
          [/connection test failed: Telegram refused the token: Unauthorized[\s\S]*What now/, '\r'], // enter the credentials again
          [/Telegram bot token/, `${tg.token}\r`],
          [/Telegram: connected \(@hermes_test_bot\)[\s\S]*who may talk to Hermes/, '111,@alice\r'],
          [/Save \d+ setting/, 'y\r'],
        ],
        { TELEGRAM_API_ROOT: tg.url },
      );
      assert.equal(r.code, 0, r.screen);
      const env = readFileSync(join(home, '.env'), 'utf8');
      assert.match(env, new RegExp(`TELEGRAM_BOT_TOKEN=${tg.token}`));
      assert.match(env, /TELEGRAM_ALLOWED_USERS="?111,@alice"?/);
      assert.equal(statSync(join(home, '.env')).mode & 0o777, 0o600);
      assert.doesNotMatch(r.screen, /ABC-wrong-token|TEST-token_abc/, 'the token is not echoed');
    } finally {
      await tg.close();
    }
  });

  test('status lists every configured platform, running or not', async () => {
    const home = tempHome();
    const r = await hermes(['gateway', 'status'], { home, env: { TELEGRAM_BOT_TOKEN: '1:abcdefghijkl', SIGNAL_HTTP_URL: 'http://127.0.0.1:9', SIGNAL_ACCOUNT: '+15550000001', MATTERMOST_URL: 'http://127.0.0.1:9' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Gateway: not running/);
    assert.match(r.stdout, /^ {2}telegram +configured +Telegram$/m);
    assert.match(r.stdout, /^ {2}signal +configured +Signal$/m);
    assert.doesNotMatch(r.stdout, /mattermost/, 'half-configured platforms (no token) are not listed');
    const none = await hermes(['gateway', 'status'], { home });
    assert.match(none.stdout, /Platforms: none configured/);
  });

  test('setup needs a terminal', async () => {
    const home = tempHome();
    const r = await hermes(['gateway', 'setup'], { home });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is interactive: run it in a terminal/);
  });

  test('install and uninstall the systemd user unit', async () => {
    const home = tempHome();
    const env = { XDG_CONFIG_HOME: join(home, 'xdg'), HERMES_HOME: join(home, '.hermes') };
    const r = await hermes(['gateway', 'install', '--no-manage'], { home, env });
    assert.equal(r.code, 0, r.stderr);
    const unit = join(home, 'xdg', 'systemd', 'user', 'hermes-gateway.service');
    assert.match(r.stdout, new RegExp(`Wrote systemd user unit ${unit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const text = readFileSync(unit, 'utf8');
    assert.match(text, /^ExecStart=\S+node\S* --max-semi-space-size=16 --no-allocation-site-pretenuring --heap-growing-percent=50 \S+bin\/hermes\.mjs gateway run$/m);
    assert.match(text, new RegExp(`^Environment=HERMES_HOME=${join(home, '.hermes').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.match(text, /^Environment=MALLOC_ARENA_MAX=2$/m);
    assert.match(text, /^KillSignal=SIGTERM$/m);
    assert.match(text, /^TimeoutStopSec=930$/m, 'the drain timeout plus a margin');
    const status = await hermes(['gateway', 'status'], { home, env });
    assert.match(status.stdout, /Service: systemd hermes-gateway\.service/);
    const u = await hermes(['gateway', 'uninstall', '--no-manage'], { home, env });
    const custom = await hermes(['gateway', 'install', '--no-manage'], { home, env: { XDG_CONFIG_HOME: join(home, 'xdg') } });
    assert.match(custom.stdout, /hermes-gateway-[\w-]+\.service/, 'another HERMES_HOME gets its own unit name');
    assert.equal(u.code, 0);
    assert.ok(!existsSync(unit));
  });

  test('bad input gets one clear line', async () => {
    const home = tempHome();
    const p = await hermes(['gateway', 'run', '--platform', 'myspace'], { home });
    assert.equal(p.code, 2);
    assert.match(p.stderr, /^hermes: Unknown platform\(s\): myspace\. Known: telegram, discord, slack, whatsapp, whatsapp_cloud, matrix, mattermost, signal, homeassistant, sms, [a-z_, ]*email, api_server, webhook\.\n$/);
    const a = await hermes(['pairing', 'approve', 'telegram', 'ABCDEFGH'], { home });
    assert.equal(a.code, 1);
    const w = await hermes(['webhook', 'subscribe', 'bad name!'], { home });
    assert.equal(w.code, 2);
    assert.match(w.stderr, /not a valid route name/);
    const d = await hermes(['webhook', 'subscribe', 'x', '--deliver-only'], { home });
    assert.equal(d.code, 2);
    assert.match(d.stderr, /--deliver-only needs --deliver/);
    const stop = await hermes(['gateway', 'stop'], { home });
    assert.equal(stop.code, 0);
    assert.match(stop.stdout, /not running/);
  });
});

const term = gatedSuite(tmuxAvailable());
term.describe('gateway setup in a terminal', () => {
  term.it('a generated API server key is shown once, with how to see it again', async () => {
    const home = tempHome();
    const t = startHermes(['gateway', 'setup'], { home });
    try {
      await t.waitFor(/Which platforms/);
      const at = listPlatforms().findIndex((d) => d.name === 'api_server');
      for (let i = 0; i < at; i++) t.keys('Down');
      t.keys('Space');
      await t.waitFor(/◼ API server/);
      t.keys('Enter');
      await t.waitFor(/API server key/);
      t.keys('Enter');
      await t.waitFor(/Save \d+ setting/);
      t.type('y');
      t.keys('Enter');
      assert.equal(await t.exitCode(), 0, t.screen());
      const key = /^API_SERVER_KEY=(.+)$/m.exec(readFileSync(join(home, '.env'), 'utf8'))![1].replace(/^"|"$/g, '');
      assert.ok(key.length >= 24);
      const screen = t.screen();
      assert.match(screen, /Generated API_SERVER_KEY/);
      assert.ok(screen.includes(key), 'the key is on the screen');
      assert.match(screen, /hermes config get API_SERVER_KEY --reveal/);
      const again = await hermes(['config', 'get', 'API_SERVER_KEY', '--reveal'], { home });
      assert.equal(again.stdout.trim(), key);
    } finally {
      t.kill();
    }
  });
});
