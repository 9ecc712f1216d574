// test-timeout: 30
// The event describer (src/session/describe.ts): every kind of agent-loop event becomes one
// surface-neutral description (or none, for streamed text and bookkeeping), and its line is the
// one the REPL, the TUI and the one-shot run print.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentEvent, AgentRequest, TurnResult } from '../../src/agent/types.ts';
import type { ProviderError, Usage } from '../../src/llm/types.ts';
import { describeEvent, describeLine, describeResolution, describeToolCall, eventLine, runningLine, type DescribeContext, type Description } from '../../src/session/describe.ts';

const usage: Usage = { input_tokens: 10, output_tokens: 5 } as Usage;
const perr = (message: string): ProviderError => ({ kind: 'server', provider: 'custom:primary', message, retryable: true }) as unknown as ProviderError;
const result = (o: Partial<TurnResult>): TurnResult => ({ finalText: '', completed: true, partial: false, failed: false, interrupted: false, apiCalls: 1, iterations: 1, usage, costUsd: null, messages: [], ...o });
const approval: AgentRequest = { kind: 'approval', command: 'rm  -rf\n/tmp/x', description: 'recursive delete', choices: ['once', 'session', 'always', 'deny'] };

describe('the event describer', () => {
  // Every member of AgentEvent, with what it becomes: [event, context, expected description fields or null, expected line].
  const cases: [string, AgentEvent, DescribeContext, Partial<Description> | null, string][] = [
    ['turn_start', { type: 'turn_start', userMessage: null }, {}, null, ''],
    ['api_start', { type: 'api_start', iteration: 1, model: 'm' }, {}, null, ''],
    ['text_delta', { type: 'text_delta', text: 'hi' }, {}, null, ''],
    ['message', { type: 'message', message: { role: 'assistant', content: 'hi' } as never }, {}, null, ''],
    ['usage', { type: 'usage', usage, costUsd: 0.1, model: 'm', provider: 'p' }, {}, null, ''],
    ['reasoning_delta', { type: 'reasoning_delta', text: 'hmm' }, {}, { kind: 'reasoning', icon: '💭', title: 'Reasoning', tone: 'dim' }, '💭 Reasoning'],
    ['tool_start', { type: 'tool_start', callId: 'c1', name: 'terminal', args: { command: 'ls -la', timeout: 30 } }, {}, { kind: 'tool', icon: '💻', title: '$', arg: 'ls -la', status: 'running', tool: 'terminal' }, '┊ 💻 $ ls -la'],
    ['tool_start (codex shell)', { type: 'tool_start', callId: 'c2', name: 'exec_command', args: { command: "/bin/bash -lc 'npm test'" } }, {}, { arg: 'npm test', title: '$' }, '┊ 💻 $ npm test'],
    [
      'tool_end',
      { type: 'tool_end', callId: 'c1', name: 'read_file', content: 'x', isError: false, durationMs: 1234 },
      { call: { name: 'read_file', args: { path: '/etc/hosts' } } },
      { kind: 'tool', icon: '📖', title: 'read', arg: '/etc/hosts', detail: '1.2s', status: 'ok', tone: 'dim' },
      '┊ 📖 read /etc/hosts  1.2s',
    ],
    [
      'tool_end failed (codex patch)',
      { type: 'tool_end', callId: 'c3', name: 'apply_patch', content: 'no', isError: true, durationMs: 61_000 },
      { call: { name: 'apply_patch', args: { changes: [{ path: 'a.ts' }, { path: 'b.ts' }] } } },
      { arg: 'a.ts, b.ts', detail: '1m1s', status: 'failed', tone: 'error' },
      '┊ 🔧 patch a.ts, b.ts  1m1s  ✗',
    ],
    ['tool_end without its call', { type: 'tool_end', callId: 'c9', name: 'mcp_fs_read', content: '', isError: false, durationMs: 100 }, {}, { icon: '🔌', arg: '' }, '┊ 🔌 mcp_fs_read  0.1s'],
    ['tool_progress', { type: 'tool_progress', callId: 'c1', name: 'terminal', text: '  line one\n  line two  ' }, {}, { kind: 'progress', arg: 'line one line two', status: 'running', tool: 'terminal' }, 'line one line two'],
    [
      'retry',
      { type: 'retry', attempt: 1, maxAttempts: 2, delayMs: 1500, error: perr('HTTP 503') },
      {},
      { kind: 'retry', icon: '↻', title: 'custom:primary', arg: 'HTTP 503', status: 'warn', tone: 'warn' },
      '↻ custom:primary: HTTP 503 — retrying in 1.5s (1/2)',
    ],
    ['fallback', { type: 'fallback', from: 'a:m', to: 'b:n', reason: 'HTTP 503' }, {}, { kind: 'fallback', status: 'warn' }, '⇄ switching from a:m to fallback b:n: HTTP 503'],
    ['fallback back', { type: 'fallback', from: 'b:n', to: 'a:m', reason: 'the primary answers again', back: true }, {}, { kind: 'fallback', status: 'ok' }, '⇄ the primary answers again (was on b:n)'],
    ['key_rotated', { type: 'key_rotated', provider: 'openrouter', reason: 'HTTP 429' }, {}, { kind: 'key_rotated', tone: 'dim' }, '⇄ openrouter: rotated to the next API key (HTTP 429)'],
    ['retract', { type: 'retract', error: perr('the stream stalled'), shown: true }, {}, { kind: 'retract' }, '✗ partial answer withdrawn (the stream stalled); it is asked again'],
    ['warning (budget)', { type: 'warning', message: 'daily budget 80% used' }, {}, { kind: 'warning', status: 'warn', tone: 'warn' }, '⚠ daily budget 80% used'],
    ['notice', { type: 'notice', message: 'memory saved' }, {}, { kind: 'notice', tone: 'dim' }, 'memory saved'],
    ['error', { type: 'error', error: { kind: 'auth', message: 'bad key' } }, {}, { kind: 'error', status: 'error', tone: 'error' }, '✗ auth: bad key'],
    ['request (approval)', { type: 'request', id: 'r1', request: approval }, {}, { kind: 'request', arg: 'rm -rf /tmp/x', status: 'warn' }, '⚠ approval needed: rm -rf /tmp/x (recursive delete)'],
    ['request (clarify)', { type: 'request', id: 'r2', request: { kind: 'clarify', question: 'Which?', choices: ['a', 'b'] } }, {}, { kind: 'request', arg: 'Which?' }, '❓ question: Which? (a · b)'],
    ['request (secret)', { type: 'request', id: 'r3', request: { kind: 'secret', name: 'GITHUB_TOKEN', prompt: 'token' } }, {}, { kind: 'request', arg: 'GITHUB_TOKEN' }, '🔑 secret needed: GITHUB_TOKEN (token)'],
    ['request_resolved (timeout)', { type: 'request_resolved', id: 'r1', answer: 'deny', source: 'timeout' }, { request: approval }, { kind: 'resolved', tone: 'warn' }, '⏱ The approval timed out: denied.'],
    ['request_resolved (answered here)', { type: 'request_resolved', id: 'r1', answer: 'once', source: 'no_responder' }, { request: approval }, null, ''],
    ['request_resolved (request unknown)', { type: 'request_resolved', id: 'r1', answer: 'once', source: 'timeout' }, {}, null, ''],
    ['turn_end (completed)', { type: 'turn_end', result: result({}) }, {}, null, ''],
    ['turn_end (interrupted)', { type: 'turn_end', result: result({ interrupted: true, completed: false }) }, {}, { kind: 'turn_end' }, 'Interrupted.'],
    ['turn_end (failed)', { type: 'turn_end', result: result({ failed: true, completed: false, error: { kind: 'x', message: 'boom' } }) }, {}, { kind: 'turn_end', status: 'error' }, '✗ the turn failed: boom'],
    ['turn_end (partial)', { type: 'turn_end', result: result({ partial: true }) }, {}, { kind: 'turn_end', status: 'warn' }, '⚠ the iteration budget ran out: the answer is a summary of the work so far'],
  ];
  for (const [name, e, ctx, want, line] of cases) {
    it(name, () => {
      const d = describeEvent(e, ctx);
      if (want === null) assert.equal(d, null);
      else {
        assert.ok(d, 'a description');
        for (const [k, v] of Object.entries(want)) assert.deepEqual(d[k as keyof Description], v, `${name}: ${k}`);
        assert.equal(describeLine(d), line);
      }
      assert.equal(eventLine(e, ctx), line);
    });
  }

  it('covers every event type the loop emits', () => {
    const types = new Set(cases.map(([, e]) => e.type));
    // Keep in step with AgentEvent (src/agent/types.ts).
    for (const t of ['turn_start', 'api_start', 'text_delta', 'reasoning_delta', 'message', 'tool_start', 'tool_progress', 'tool_end', 'usage', 'retry', 'fallback', 'key_rotated', 'retract', 'request', 'request_resolved', 'warning', 'notice', 'error', 'turn_end'])
      assert.ok(types.has(t as AgentEvent['type']), t);
  });

  it('says how a request was settled elsewhere', () => {
    const line = (r: AgentRequest, source: string, answer?: unknown) => {
      const d = describeResolution(r, source, answer);
      return d && describeLine(d);
    };
    assert.equal(line(approval, 'person', 'once'), '✓ Approved once from the dashboard: rm -rf /tmp/x');
    assert.equal(line(approval, 'person', 'session'), '✓ Approved for this session from the dashboard: rm -rf /tmp/x');
    assert.equal(line(approval, 'person', 'deny'), '✗ Denied from the dashboard: rm -rf /tmp/x');
    assert.equal(line({ ...approval, command: 'x'.repeat(100) }, 'person', 'always')?.length, 'always (saved to command_allowlist) from the dashboard: '.length + '✓ Approved '.length + 60);
    assert.equal(line({ kind: 'clarify', question: 'q' }, 'person', 'blue'), '↳ blue (answered from the dashboard)');
    assert.equal(line({ kind: 'clarify', question: 'q' }, 'interrupted'), 'The question was cancelled.');
    assert.equal(line({ kind: 'secret', name: 'K', prompt: '' }, 'person', 'v'), '🔑 secret entered from the dashboard');
    assert.equal(line({ kind: 'secret', name: 'K', prompt: '' }, 'timeout'), '⏱ The secret prompt timed out.');
  });

  it('a running call reads with its tool name and main argument, or its latest progress', () => {
    const d = describeToolCall('terminal', { command: 'sleep 3; echo done' }, { argMax: 40 });
    assert.equal(runningLine(d), '💻 terminal sleep 3; echo done');
    assert.equal(runningLine(d, 'compiling…'), '💻 terminal compiling…');
    assert.equal(runningLine(describeToolCall('web_search', { query: 'pelicans' }, { emoji: '🐦' })), '🐦 web_search pelicans');
    assert.equal(describeToolCall('todo', {}, { durationMs: null }).detail, '', 'a stored call has no duration');
  });
});
