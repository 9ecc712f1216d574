// The ToolContext a handler gets: the call's members over its session (read live), typed slots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineSlot, Slots } from '../../src/state/slots.ts';
import { toolContext } from '../../src/tools/context.ts';
import { defineTool } from '../../src/tools/registry.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { call, closeServices, makeCtx, makeServices } from './helpers.ts';

test('a slot makes its value once per session; peek, set and delete go by the handle', () => {
  const counter = defineSlot('test_counter', () => ({ n: 0 }));
  const note = defineSlot<string>('test_note');
  const a = new Slots();
  const b = new Slots();
  a.get(counter).n++;
  a.get(counter).n++;
  assert.equal(a.get(counter).n, 2, 'the same value on every get');
  assert.equal(b.get(counter).n, 0, 'each session has its own');
  assert.equal(a.peek(note), undefined);
  a.set(note, 'kept');
  assert.equal(a.peek(note), 'kept');
  a.delete(counter);
  assert.equal(a.peek(counter), undefined);
  assert.equal(a.get(counter).n, 0, 'made again after delete');
});

test('a handler reads the call and its session; the session is read live and slots outlive the call', async () => {
  const seen: { cwd: string; callId: string; platform: string; count: number }[] = [];
  const calls = defineSlot('test_calls', () => ({ count: 0 }));
  const probe = defineTool({
    name: 'probe_ctx',
    toolset: 'test',
    description: 'test',
    schema: (z) => z.object({}),
    handler: (_a, ctx: ToolContext) => {
      const c = ctx.slot(calls);
      c.count++;
      seen.push({ cwd: ctx.cwd, callId: ctx.callId, platform: ctx.platform, count: c.count });
      return '{}';
    },
  });
  const s = makeServices();
  const first = makeCtx();
  const start = s.cwd;
  await call(probe, {}, s, first);
  s.cwd = '/elsewhere'; // a /worktree move between calls
  await call(probe, {}, s);
  assert.equal(seen[0].cwd, start);
  assert.equal(seen[0].callId, first.callId);
  assert.equal(seen[1].cwd, '/elsewhere', 'the next call sees the new directory');
  assert.deepEqual(seen.map((x) => x.count), [1, 2], 'the slot lives as long as the session');
  assert.equal(seen[1].platform, 'cli');
  await closeServices(s);
});

test('files() and exec() are the session\'s own (one backend per session, shared by every call)', async () => {
  const s = makeServices();
  const a = toolContext(makeCtx(), s);
  const b = toolContext(makeCtx(), s);
  assert.equal(await a.files(), await b.files());
  const backend = await a.exec();
  assert.equal(backend, await b.exec());
  const r = await backend.exec('pwd', { timeoutMs: 10_000, signal: new AbortController().signal });
  assert.equal(r.exitCode, 0);
  await closeServices(s);
});
