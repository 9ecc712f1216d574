// Background work reporting back into the conversation, through the tool handlers and a real
// Inbox: terminal notify_on_complete and watch_patterns (real processes), the watch rate limits (a
// fake clock), and delegate_task background / role with subagent usage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Inbox } from '../../src/session/inbox.ts';
import delegateTask from '../../src/tools/defs/delegate.ts';
import processTool from '../../src/tools/defs/process.ts';
import { Watcher, WATCH_LIFETIME_MAX_HITS, WATCH_MIN_INTERVAL_MS } from '../../src/tools/process-notify.ts';
import terminal from '../../src/tools/defs/terminal.ts';
import type { ChildResult, ChildSpec, Notifier } from '../../src/tools/types.ts';
import { until } from '../gateway/helpers.ts';
import { call, closeServices, makeServices } from './helpers.ts';

/** An inbox a surface answers (the REPL, the gateway and one-shot runs set `listening`). */
function listeningInbox(): Inbox {
  const i = new Inbox();
  i.listening = true;
  return i;
}

describe('terminal notify_on_complete', () => {
  it('reports the end of a background process once, with its output tail', async () => {
    const inbox = listeningInbox();
    const s = makeServices({ notifier: inbox });
    try {
      const r = await call(terminal, { command: 'sleep 0.3; echo build ok; exit 3', background: true, notify_on_complete: true }, s);
      assert.equal(r.json.notify_on_complete, true);
      assert.match(r.json.output, /You will be told when it ends/);
      assert.equal(inbox.working, 1, 'the one-shot surface knows to wait for it');
      assert.equal(await inbox.settle(15_000), true);
      const notes = inbox.take();
      assert.equal(notes.length, 1);
      assert.equal(notes[0].kind, 'completion');
      assert.match(notes[0].text, new RegExp(`^\\[IMPORTANT: Background process ${r.json.session_id} exited \\(exit code 3\\)\\.\\nCommand: sleep 0.3; echo build ok; exit 3\\nOutput:\\nbuild ok`));
      assert.match(notes[0].title, /Failed \(exit 3\)/);
      assert.equal(inbox.take().length, 0, 'exactly once');
    } finally {
      await closeServices(s);
    }
  });

  it('stays quiet when the model already waited for the process itself', async () => {
    const inbox = listeningInbox();
    const s = makeServices({ notifier: inbox });
    try {
      const r = await call(terminal, { command: 'sleep 0.2; echo done', background: true, notify_on_complete: true }, s);
      const w = await call(processTool, { action: 'wait', session_id: r.json.session_id, timeout: 15 }, s);
      assert.equal(w.json.exit_code, 0);
      await inbox.settle(5000);
      assert.equal(inbox.take().length, 0);
    } finally {
      await closeServices(s);
    }
  });

  it('redacts secrets the process printed', async () => {
    const inbox = listeningInbox();
    const s = makeServices({ notifier: inbox });
    try {
      await call(terminal, { command: 'echo "key: sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH"', background: true, notify_on_complete: true }, s);
      await inbox.settle(15_000);
      const [n] = inbox.take();
      assert.doesNotMatch(n.text, /AAAABBBBCCCCDDDD/);
    } finally {
      await closeServices(s);
    }
  });

  it('without a conversation to report to (a cron run, a subagent), says so instead of promising', async () => {
    for (const notifier of [undefined, new Inbox()]) {
      const s = makeServices({ notifier });
      try {
        const r = await call(terminal, { command: 'true', background: true, notify_on_complete: true }, s);
        assert.match(r.json.note, /no conversation to report back to/);
        assert.equal(r.json.notify_on_complete, undefined);
        assert.equal(notifier?.working ?? 0, 0);
      } finally {
        await closeServices(s);
      }
    }
  });
});

describe('terminal watch_patterns', () => {
  it('reports matching output lines while the process keeps running', async () => {
    const inbox = listeningInbox();
    const s = makeServices({ notifier: inbox });
    try {
      const r = await call(terminal, { command: 'echo booting; sleep 0.2; printf "Server rea"; sleep 0.2; echo "dy on :8080"; sleep 30', background: true, watch_patterns: ['Server ready'] }, s);
      assert.deepEqual(r.json.watch_patterns, ['Server ready']);
      assert.equal(inbox.working, 0, 'a watcher does not hold a one-shot run open');
      await until(() => inbox.size > 0, 15_000, 'the match');
      const [n] = inbox.take();
      assert.equal(n.kind, 'watch_match');
      assert.match(n.text, /matched watch pattern "Server ready"\.\nCommand: .*\nMatched output:\nServer ready on :8080\]$/s);
      assert.match(n.title, /matched "Server ready"/);
    } finally {
      await closeServices(s);
    }
  });

  it('notify_on_complete wins when both are given', async () => {
    const inbox = listeningInbox();
    const s = makeServices({ notifier: inbox });
    try {
      const r = await call(terminal, { command: 'echo ready; sleep 0.1', background: true, notify_on_complete: true, watch_patterns: ['ready'] }, s);
      assert.match(r.json.note, /watch_patterns was ignored/);
      await inbox.settle(15_000);
      assert.deepEqual(inbox.take().map((n) => n.kind), ['completion']);
    } finally {
      await closeServices(s);
    }
  });

  it('rate limits: one per 15 s, three dropped windows or eight matches turn watching into one exit notice', () => {
    const p = { id: 'proc_x', command: 'server', status: 'running', exitCode: null, output: '' };
    let t = 1_000_000;
    const w = new Watcher(['ERR']);
    assert.equal(w.feed(p, 'ok\nERR one\n', t).notices.length, 1);
    // Inside the cooldown: dropped, one strike for the window however many lines.
    assert.equal(w.feed(p, 'ERR two\nERR three\n', (t += 1000)).notices.length, 0);
    t += WATCH_MIN_INTERVAL_MS;
    const next = w.feed(p, 'ERR four\n', t);
    assert.match(next.notices[0].text, /\(2 earlier matches were dropped by the rate limit\)/);
    w.feed(p, 'ERR\n', (t += 10)); // strike 2
    t += WATCH_MIN_INTERVAL_MS;
    w.feed(p, 'ERR\n', t);
    const r = w.feed(p, 'ERR\n', (t += 10)); // strike 3 → off
    assert.equal(r.promote, true);
    assert.equal(r.notices[0].kind, 'watch_disabled');
    assert.match(r.notices[0].text, /one notice when the process exits/);
    assert.equal(w.feed(p, 'ERR\n', (t += WATCH_MIN_INTERVAL_MS)).notices.length, 0);

    const life = new Watcher(['hit']);
    let last;
    for (let i = 0; i < WATCH_LIFETIME_MAX_HITS; i++) last = life.feed(p, 'hit\n', (t += WATCH_MIN_INTERVAL_MS + 1));
    assert.equal(last!.promote, true);
    assert.deepEqual(last!.notices.map((n) => n.kind), ['watch_match', 'watch_disabled']);
  });
});

describe('delegate_task background', () => {
  const child = (gate: Promise<void>, specs: ChildSpec[]) => async (spec: ChildSpec): Promise<ChildResult> => {
    specs.push(spec);
    await gate;
    return { status: 'completed', summary: `found it: ${spec.goal}`, apiCalls: 2, iterations: 2, toolTrace: ['web_search'], usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }, costUsd: 0.0012, model: 'child-model' };
  };

  it('returns at once and reports later as a new message', async () => {
    const inbox = listeningInbox();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const specs: ChildSpec[] = [];
    const s = makeServices({ notifier: inbox, spawnChild: child(gate, specs) });
    const r = await call(delegateTask, { goal: 'research the flaky test', context: 'CI logs in ci/', background: true }, s);
    assert.equal(r.json.status, 'dispatched');
    assert.match(r.json.delegation_id, /^deleg_[0-9a-f]{8}$/);
    assert.match(r.json.note, /do not wait or poll/);
    assert.equal(inbox.working, 1);
    assert.equal(specs[0].signal, inbox.signal, 'it lives as long as the session, not the turn');
    assert.ok(specs[0].blockedTools.includes('delegate_task'));
    open();
    await inbox.settle(5000);
    const [n] = inbox.take();
    assert.equal(n.kind, 'delegation');
    assert.match(n.text, new RegExp(`^\\[ASYNC DELEGATION COMPLETE — ${r.json.delegation_id}\\]`));
    assert.match(n.text, /Original goal: research the flaky test\nContext you provided: CI logs in ci\/\nRole: leaf   Model: child-model\nStatus: completed   API calls: 2/);
    assert.match(n.text, /--- RESULT ---\nfound it: research the flaky test$/);
  });

  it('is single-task only and capped by delegation.max_concurrent_children (Hermes v33)', async () => {
    const inbox = listeningInbox();
    const s = makeServices({ notifier: inbox, spawnChild: child(new Promise(() => {}), []) });
    assert.match((await call(delegateTask, { tasks: [{ goal: 'a' }], background: true }, s)).json.error, /single `goal`/);
    s.config.delegation.max_concurrent_children = 1;
    assert.equal((await call(delegateTask, { goal: 'a', background: true }, s)).json.status, 'dispatched');
    assert.match((await call(delegateTask, { goal: 'b', background: true }, s)).json.error, /max_concurrent_children is 1/);
    assert.match((await call(delegateTask, { goal: 'c', background: true }, makeServices({ spawnChild: child(Promise.resolve(), []) }))).json.error, /no conversation|none/);
    inbox.close();
  });

  it('results carry the child\'s model, tokens and cost', async () => {
    const s = makeServices({ spawnChild: child(Promise.resolve(), []) });
    const r = await call(delegateTask, { goal: 'x' }, s);
    assert.deepEqual(r.json.results[0].tokens, { input: 100, output: 20 });
    assert.equal(r.json.results[0].cost_usd, 0.0012);
    assert.equal(r.json.results[0].model, 'child-model');
  });
});

describe('a new conversation (/new, /resume)', () => {
  it('drops what the old conversation’s background processes report later; the new one hears its own', async () => {
    const inbox = listeningInbox();
    // The old conversation's channel, counting what its process tries to report.
    const channel = inbox.channel();
    let reported = 0;
    const old: Notifier = {
      notify: (n) => {
        reported++;
        channel.notify(n);
      },
      expect: (w) => channel.expect(w),
      get signal() {
        return channel.signal;
      },
      get listening() {
        return channel.listening;
      },
    };
    const s = makeServices({ notifier: old });
    try {
      await call(terminal, { command: 'sleep 0.3; echo old build done', background: true, notify_on_complete: true }, s);
      assert.equal(inbox.working, 1);
      // /new: the session takes a new channel; the old one goes quiet.
      s.notifier = inbox.newConversation();
      assert.equal(inbox.working, 0, 'the new conversation waits for nothing of the old one');
      await until(() => reported === 1, 15_000, 'the old process to report');
      assert.equal(inbox.size, 0, 'nothing of the old conversation arrives');
      const mine = await call(terminal, { command: 'echo new build done', background: true, notify_on_complete: true }, s);
      assert.equal(await inbox.settle(15_000), true);
      const notes = inbox.take();
      assert.equal(notes.length, 1);
      assert.match(notes[0].text, new RegExp(mine.json.session_id));
    } finally {
      await closeServices(s);
    }
  });
});
