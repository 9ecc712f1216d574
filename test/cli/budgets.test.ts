// Spend caps (config.yaml budgets:) through the real binary against the fake LLM: a runaway tool
// loop stops within one request of a token cap; a dollar cap with a priced model (and `hermes cost
// why` explaining it); a cron run stopped by job_usd; `ask` in the REPL (tmux).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { hermes, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';
import { startHermes, tmuxAvailable } from '../helpers/tmux.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});
beforeEach(() => fake.setHandler(null));

const isTurn = (r: RecordedRequest) => Array.isArray(r.body.tools) && r.body.tools.length > 0;

/** A model that never stops calling a tool: each call reports `input` prompt tokens and 50 output. */
function runaway(input: number): void {
  let n = 0;
  fake.setHandler((r) => (isTurn(r) ? { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: String(++n), content: `step ${n}`, status: 'pending' }] } }], usage: { input, output: 50 } } : { text: 'A title', usage: { input: 10, output: 2 } }));
}

function customHome(yaml: string): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n${yaml}`);
  return h;
}

/** Anthropic's wire with a model the price table knows (claude-sonnet-4: $3 in, $15 out per million). */
function pricedHome(yaml: string): string {
  const h = tempHome();
  writeFileSync(join(h, 'config.yaml'), `model:\n  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-sonnet-4\n  api_key: k\n${yaml}`);
  return h;
}

function ledger(home: string): { kind: string; input: number; output: number; cache_read: number; cache_write: number; usd: number | null; job?: string }[] {
  const dir = join(home, 'spend');
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l)));
}

describe('budgets', () => {
  it('a runaway tool loop stops within one request of session_tokens, exit 1, history kept', async () => {
    const h = customHome('budgets:\n  session_tokens: 50000\n  action: stop\n');
    runaway(10_000);
    const before = fake.requests.length;
    const r = await hermes(['chat', '-q', 'loop forever', '-t', 'todo'], { home: h });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const line = r.stderr.trim().split('\n').pop()!;
    assert.match(line, /^hermes: budgets\.session_tokens 50,000 tokens reached: 40,200 tokens spent this session, the next request ~[\d,]+ tokens/);
    const calls = fake.requests.slice(before).filter(isTurn).length;
    assert.equal(calls, 4, 'four calls of 10,050 fit under 50,000; the fifth would not');
    const used = ledger(h).reduce((n, e) => n + e.input + e.output + e.cache_read + e.cache_write, 0);
    assert.ok(used <= 50_000 + 10_050, `spent ${used}`);
    // The conversation is kept: the next run continues it (and stops at once, the cap being spent).
    const list = await hermes(['sessions', 'list'], { home: h });
    assert.match(list.stdout, /loop forever/);
    const again = await hermes(['chat', '-c', '-q', 'and again', '-t', 'todo'], { home: h });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /budgets\.session_tokens/);
  });

  it('a dollar cap with a priced model; hermes cost why explains the day', async () => {
    const h = pricedHome('budgets:\n  session_usd: 0.50\n  action: stop\n');
    runaway(100_000);
    const before = fake.requests.length;
    const r = await hermes(['chat', '-q', 'spend it', '-t', 'todo'], { home: h });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    // 100,000 in + 50 out at $3/$15 per million = $0.30075; a second call of the same size would pass $0.50.
    assert.match(r.stderr, /hermes: budgets\.session_usd \$0\.50 reached: \$0\.30 spent this session, the next request ~\$0\.30/);
    assert.equal(fake.requests.slice(before).filter(isTurn).length, 1);
    const [e] = ledger(h);
    assert.equal(e.kind, 'main');
    assert.equal(e.usd, 0.30075);

    const why = await hermes(['cost', 'why'], { home: h });
    assert.equal(why.code, 0, why.stderr);
    assert.match(why.stdout, /\$0\.30/);
    assert.match(why.stdout, /claude-sonnet-4/);
    assert.match(why.stdout, /main/);
    assert.match(why.stdout, /cache read/);
    assert.match(why.stdout, /session_usd/, 'the budgets are shown');
  });

  it('a cron run is stopped by job_usd', async () => {
    const h = pricedHome('budgets:\n  job_usd: 0.50\n  action: ask\n');
    const c = await hermes(['cron', 'create', 'every 1h', 'Keep going', '--deliver', 'local'], { home: h });
    assert.equal(c.code, 0, c.stderr);
    const id = /Created job ([0-9a-f]{12})/.exec(c.stdout)![1];
    runaway(100_000);
    const before = fake.requests.length;
    const r = await hermes(['cron', 'run', id], { home: h, timeoutMs: 60_000 });
    assert.notEqual(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /budgets\.job_usd \$0\.50 reached/);
    assert.equal(fake.requests.slice(before).filter(isTurn).length, 1, 'unattended: no question, it stops');
    assert.ok(ledger(h).every((e) => e.job === `cron:${id}`));
  });

  it('ask in the REPL: the cap is a question; once continues the turn, deny stops it', { skip: tmuxAvailable() ?? false }, async () => {
    const h = customHome('budgets:\n  session_tokens: 25000\n  action: ask\n');
    // Two tool calls, then an answer; each call 10,050 tokens.
    let n = 0;
    fake.setHandler((r) => {
      if (!isTurn(r)) return { text: 'A title', usage: { input: 10, output: 2 } };
      n++;
      return n % 3 === 0 ? { text: `Done after ${n} calls.`, usage: { input: 10_000, output: 50 } } : { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: String(n), content: 'x', status: 'pending' }] } }], usage: { input: 10_000, output: 50 } };
    });
    const t = startHermes(['-t', 'todo'], { home: h });
    try {
      await t.waitFor(/❯/);
      t.type('work');
      t.keys('Enter');
      await t.waitFor(/budgets\.session_tokens 25,000 tokens reached/, { timeoutMs: 30_000 });
      t.type('o');
      await t.waitFor(/Done after 3 calls\./, { timeoutMs: 30_000 });
      const mark = t.mark();
      t.type('more');
      t.keys('Enter');
      await t.waitFor(/budgets\.session_tokens 25,000 tokens reached/, { after: mark, timeoutMs: 30_000 });
      t.type('d');
      await t.waitFor(/budgets\.session_tokens 25,000 tokens reached: [\d,]+ tokens spent this session.*The turn stopped/s, { after: mark, timeoutMs: 30_000 });
    } finally {
      t.kill();
    }
  });
});
