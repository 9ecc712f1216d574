// `hermes whatsapp` pairing: the QR is shown, the scan's restart (515) is followed by a fresh socket
// that opens as the linked device; the gateway refuses to start unpaired with a clear message.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runGateway } from '../../src/gateway/daemon.ts';
import { pairWhatsApp } from '../../src/cli/whatsapp-cmd.ts';
import { hermes, tempHome } from '../helpers/cli.ts';
import { fakeBaileys } from '../helpers/fake-baileys.ts';
import { startFakeLlm } from '../helpers/fake-llm.ts';
import { gatewayHome, until } from './helpers.ts';

describe('whatsapp pairing', () => {
  test('QR, scan, restart, open: paired as the phone’s number', async () => {
    const fb = fakeBaileys('15550009999:3@s.whatsapp.net');
    fb.unpaired = true;
    const qrs: string[] = [];
    const lines: string[] = [];
    const home = tempHome();
    const paired = pairWhatsApp({ home, makeSocket: (d) => fb.makeSocket(d), showQr: (q) => (qrs.push(q), fb.scan()), say: (l) => lines.push(l), timeoutMs: 10_000 });
    assert.deepEqual(await paired, { phone: '15550009999' });
    assert.deepEqual(qrs, ['2@fakeQRpayload,abc,def']);
    assert.match(lines.join('\n'), /reconnecting once as the new device/);
    assert.equal(fb.dirs.length, 2);
    assert.ok(fb.dirs[0].startsWith(home) && fb.dirs[0].endsWith('whatsapp/session'));
  });

  test('an unpaired gateway says to run `hermes whatsapp`', async () => {
    const llm = await startFakeLlm();
    const fb = fakeBaileys();
    fb.unpaired = true;
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { WHATSAPP_ENABLED: 'true' } });
    const gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false, backoff: () => 60_000, deps: { whatsapp: { makeSocket: (d: string) => fb.makeSocket(d) } } });
    try {
      const st = await until(() => gw.supervisor.status.get('whatsapp')?.last_error, 10_000, 'the failure');
      assert.match(st, /not paired: run `hermes whatsapp`/);
    } finally {
      await gw.shutdown('test');
      await llm.close();
    }
  });

  test('bad flags are usage errors; nothing is written', async () => {
    const home = tempHome();
    const r = await hermes(['whatsapp', '--mode', 'robot', '--allowed-users', '1555'], { home });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--mode is bot or self-chat/);
    const r2 = await hermes(['whatsapp', '--mode', 'bot', '--allowed-users', '+1 555 abc'], { home });
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /not phone numbers/);
  });
});
