// test-timeout: 60
// The delivery ledger's watch on a reply at the socket (wire-hook.ts, nodeFetch) and part by part:
// a process killed inside the hook has sent no request the platform could act on, one killed right
// after it has sent the whole request; a reply split into parts is sent again after a restart from
// the first part that never went out, never from the start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sendText, type ReplyParts } from '../../src/gateway/delivery.ts';
import { GatewayLedger, obligationId } from '../../src/gateway/ledger.ts';
import type { GatewayRunner } from '../../src/gateway/runner.ts';
import type { InboundMessage, PlatformAdapter, SendResult } from '../../src/gateway/types.ts';
import { nodeFetch } from '../../src/llm/http.ts';
import { SqliteLedger } from '../../src/state/delivery-ledger.ts';

/** What the fake platform got: whole requests (their bodies) and requests cut short. */
const got: string[] = [];
const cut: string[] = [];
let server: http.Server;
let base: string;
const dir = mkdtempSync(join(tmpdir(), 'hermes-ledger-parts-'));

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('aborted', () => cut.push(body));
    req.on('end', () => {
      got.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: String(got.length) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const waitFor = async (pred: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(pred(), what);
};

describe('the wire hook (nodeFetch)', () => {
  // A process that sends one watched request and is SIGKILLed inside the hook or right after it.
  const script = (when: 'in-hook' | 'after-hook', marker: string) => {
    const file = join(dir, `${when}.ts`);
    writeFileSync(
      file,
      `import { nodeFetch } from ${JSON.stringify(join(process.cwd(), 'src/llm/http.ts'))};
import { withWireHook } from ${JSON.stringify(join(process.cwd(), 'src/llm/wire-hook.ts'))};
const kill = () => process.kill(process.pid, 'SIGKILL');
// A warm keep-alive socket first, so the watched request goes out on a connected one too.
await (await nodeFetch(${JSON.stringify(base)} + '/warm', { method: 'POST', body: 'warm' })).text();
await withWireHook(() => { ${when === 'in-hook' ? 'kill();' : 'setImmediate(kill);'} }, () => nodeFetch(${JSON.stringify(base)} + '/send', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: ${JSON.stringify(marker)} + 'x'.repeat(200000) }) }));
`,
    );
    return new Promise<number | null>((resolve) => spawn(process.execPath, [file], { stdio: 'ignore' }).on('exit', (_c, s) => resolve(s === 'SIGKILL' ? 9 : _c)));
  };

  it('killed inside the hook: the platform never gets the whole request', async () => {
    assert.equal(await script('in-hook', 'IN-HOOK'), 9);
    await waitFor(() => cut.some((b) => b.includes('IN-HOOK')), 'the cut-short request was seen');
    assert.ok(!got.some((b) => b.includes('IN-HOOK')), 'no whole request arrived');
    const partial = cut.find((b) => b.includes('IN-HOOK'))!;
    assert.ok(partial.length > 1000, `all but the end of the request had gone out (${partial.length} bytes)`);
  });

  it('killed right after the hook: the platform gets the whole request', async () => {
    assert.equal(await script('after-hook', 'AFTER-HOOK'), 9);
    await waitFor(() => got.some((b) => b.includes('AFTER-HOOK')), 'the whole request arrived');
    assert.ok(JSON.parse(got.find((b) => b.includes('AFTER-HOOK'))!).text.length > 200000);
  });
});

describe('a reply in parts after a restart', () => {
  // A platform whose sends go through nodeFetch (so the hook sees each request at the socket).
  const sent: string[] = [];
  const adapter = {
    name: 'testchat',
    maxMessageLength: 45,
    wireReceipts: true,
    async send(chatId: string, text: string): Promise<SendResult> {
      const r = await nodeFetch(`${base}/send`, { method: 'POST', body: JSON.stringify({ chatId, text }) });
      sent.push(text);
      return { ok: r.ok, messageId: ((await r.json()) as { id: string }).id };
    },
  } as unknown as PlatformAdapter;
  const runner = {
    env: {},
    config: {},
    sendRaw: async (a: PlatformAdapter, src: { chatId: string }, text: string, parts?: ReplyParts) => {
      const r = await sendText(a, src.chatId, text, { redact: false, parts });
      return { ok: r.ok, messageId: r.messageIds[0], error: r.error };
    },
    onMessage: () => assert.fail('nothing is run again'),
  } as unknown as GatewayRunner;
  const reply = ['First part of the answer, long enough.', 'Second part of the answer, long too.', 'Third and last part of the answer.'].join('\n\n');
  const msg = (id: string): InboundMessage => ({ source: { platform: 'testchat', chatId: 'c1', chatType: 'dm' }, messageId: id, text: 'hi' });

  /** A gateway (pid that no longer runs) took `id`, sent `partsOut` parts of its reply and died. */
  const deadGateway = (db: string, id: string, state: 'pending' | 'attempting', partsOut: number) => {
    const dead = SqliteLedger.open(db, { owner: `${hostname()}:4194303:1` });
    dead.receive({ key: `testchat:c1:${id}`, platform: 'testchat', chatId: 'c1', messageId: id, payload: JSON.stringify(msg(id)) });
    dead.start([`testchat:c1:${id}`], 'sk', 'sid');
    const oid = obligationId('sk', id, reply);
    dead.obligate({ id: oid, keys: [`testchat:c1:${id}`], sessionKey: 'sk', platform: 'testchat', chatId: 'c1', content: reply, sendMode: 'wire' });
    for (let i = 0; i < partsOut; i++) dead.attempting(oid, i);
    if (state === 'attempting' && !partsOut) dead.attempting(oid);
    dead.close();
    return oid;
  };

  const recover = async (db: string) => {
    sent.length = 0;
    const store = SqliteLedger.open(db);
    const lines: string[] = [];
    await new GatewayLedger(store, (l) => lines.push(l)).recover(runner, adapter);
    const counts = store.counts();
    store.close();
    return { lines, counts };
  };

  it('one part of three went out: the other two are sent, once', async () => {
    const db = join(dir, 'one.db');
    deadGateway(db, 'm1', 'attempting', 1);
    const { counts } = await recover(db);
    assert.deepEqual(sent, ['Second part of the answer, long too.', 'Third and last part of the answer.']);
    assert.equal(counts.answered, 1);
    assert.equal(counts.pending, 0);
    // A second restart finds nothing left to do.
    await recover(db);
    assert.deepEqual(sent, []);
  });

  it('every part went out: nothing is sent again', async () => {
    const db = join(dir, 'all.db');
    deadGateway(db, 'm2', 'attempting', 3);
    const { counts, lines } = await recover(db);
    assert.deepEqual(sent, []);
    assert.equal(counts.answered, 1);
    assert.match(lines.join('\n'), /1 already answered/);
  });

  it('recorded but never written (pending): the whole reply is sent, without a duplicate marker', async () => {
    const db = join(dir, 'pending.db');
    deadGateway(db, 'm3', 'pending', 0);
    await recover(db);
    assert.deepEqual(sent, reply.split('\n\n'));
  });

  it('a part that failed on the network and is tried again counts as not sent', () => {
    const db = join(dir, 'back.db');
    const oid = deadGateway(db, 'm4', 'attempting', 1);
    const l = SqliteLedger.open(db);
    l.back(oid, 0);
    const { inbound, obligations } = l.recoverable('testchat');
    assert.equal(inbound[0].partsOut, 0);
    assert.equal(obligations.get(oid)?.state, 'pending');
    l.close();
  });
});
