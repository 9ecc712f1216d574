// test-timeout: 60
// The behaviour guidance of the system prompt (issue 37): each item appears under the condition
// Hermes includes it under, and not otherwise; the output cap the conversation asks for.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configuredOutputCap, defaultOutputCap } from '../../src/llm/index.ts';
import { FINISH_GUIDANCE, PARALLEL_GUIDANCE, STEER_GUIDANCE, profileLine } from '../../src/session/prompt-guidance.ts';
import { harness } from './helpers.ts';

const systemOf = (h: ReturnType<typeof harness>) => h.session.system;

describe('behaviour guidance in the system prompt', () => {
  it('with tools: finishing the job, parallel calls, the steering marker, skill safety, mandatory skills, host and working directory, the CLI file rule', () => {
    const h = harness();
    const sys = systemOf(h);
    for (const part of [FINISH_GUIDANCE, PARALLEL_GUIDANCE, STEER_GUIDANCE]) assert.ok(sys.includes(part), part);
    assert.match(sys, /reload one whose skill_view output was cleared/, 'skill safety (skill_manage loaded)');
    assert.match(sys, /if one fits even partly, you must load it with skill_view\(name\)/, 'mandatory skill loading');
    assert.ok(sys.includes(`; working directory ${h.cwd}`), 'host line names the working directory');
    assert.match(sys, /^Host: \S+, user \S+; working directory/m);
    assert.match(sys, /No attachments: name files by path/);
    assert.doesNotMatch(sys, /Hermes profile:/, 'a HERMES_HOME outside any profile tree: no profile line');
  });

  it('without tools: none of the tool guidance; the facts stay', () => {
    const h = harness({ config: (c) => void (c.toolsets = []), session: { toolNames: [] } });
    const sys = systemOf(h);
    for (const part of [FINISH_GUIDANCE, PARALLEL_GUIDANCE, STEER_GUIDANCE, 'skill_view']) assert.ok(!sys.includes(part), part);
    assert.match(sys, /^Host: /m);
  });

  it('agent.task_completion_guidance / parallel_tool_call_guidance: false turn their item off', () => {
    const h = harness({ config: (c) => Object.assign(c.agent, { task_completion_guidance: false, parallel_tool_call_guidance: false }) });
    const sys = systemOf(h);
    assert.ok(!sys.includes(FINISH_GUIDANCE) && !sys.includes(PARALLEL_GUIDANCE));
    assert.ok(sys.includes(STEER_GUIDANCE), 'the marker note stays: tools can carry steering');
  });

  it('a remote terminal backend replaces the host facts', () => {
    const h = harness({ config: (c) => void (c.terminal = { ...c.terminal, backend: 'docker' }) });
    const sys = systemOf(h);
    assert.match(sys, /^Terminal backend: docker; commands run there, not on this machine/m);
    assert.doesNotMatch(sys, /^Host: /m);
  });

  it('other platforms: no CLI file rule', () => {
    const h = harness({ session: { platform: 'telegram' } });
    assert.doesNotMatch(systemOf(h), /No attachments/);
  });
});

describe('the active profile line', () => {
  const root = mkdtempSync(join(tmpdir(), 'hermes-prof-'));
  it('the default profile alone: nothing to say', () => {
    assert.equal(profileLine(root, { HERMES_HOME: root }), undefined);
  });
  it('the default profile with others: named, with the others to leave alone', () => {
    mkdirSync(join(root, 'profiles', 'work'), { recursive: true });
    const line = profileLine(root, { HERMES_HOME: root });
    assert.match(line ?? '', /^Hermes profile: default; other profiles \(.*profiles\) belong to other sessions/);
  });
  it('a named profile: its name and home, the default one left alone', () => {
    const work = join(root, 'profiles', 'work');
    const line = profileLine(work, { HERMES_HOME: work });
    assert.ok(line?.startsWith(`Hermes profile: work (${work}); the default profile (${root})`), line);
  });
  it('in a session run from a profile', () => {
    const work = join(root, 'profiles', 'work');
    const h = harness({ home: work, session: { env: { HOME: root, HERMES_HOME: work } } });
    assert.match(systemOf(h), /^Hermes profile: work \(/m);
  });
});

describe('the output cap (max_tokens)', () => {
  const chat = (provider: string, model: string) => defaultOutputCap({ apiMode: 'chat_completions', provider, model });
  it("the provider's default, else an Anthropic-style model's ceiling, else none", () => {
    assert.equal(chat('custom', 'llama3'), 65_536);
    assert.equal(chat('custom:lab', 'llama3'), 65_536);
    assert.equal(chat('nvidia', 'meta/llama'), 16_384);
    assert.equal(chat('openrouter', 'anthropic/claude-sonnet-4.5'), 64_000);
    assert.equal(chat('openrouter', 'minimax/minimax-m2'), 131_072);
    assert.equal(chat('openrouter', 'openai/gpt-5'), undefined);
    assert.equal(defaultOutputCap({ apiMode: 'anthropic_messages', provider: 'anthropic', model: 'claude-sonnet-4-5' }), undefined, 'the Anthropic adapter sets its own');
    assert.equal(defaultOutputCap({ apiMode: 'codex_responses', provider: 'openai-codex', model: 'gpt-5' }), undefined);
  });
  it('model.max_tokens: a positive whole number, else ignored', () => {
    assert.equal(configuredOutputCap(2000), 2000);
    assert.equal(configuredOutputCap('2000'), 2000);
    for (const bad of [0, -5, 1.5, 'lots', true, null, undefined]) assert.equal(configuredOutputCap(bad), undefined);
  });
  it('the session asks for model.max_tokens when set', async () => {
    const h = harness({ steps: [{ text: 'ok' }], config: (c) => void (c.model.max_tokens = 1234) });
    await h.session.prompt('hi');
    assert.equal(h.requests[0].maxTokens, 1234);
  });
  it('without it, the provider default goes as a ceiling (outputCap), not as the expected answer size', async () => {
    const h = harness({ steps: [{ text: 'ok' }] });
    (h.session.llm.active as { provider: string }).provider = 'custom';
    await h.session.prompt('hi');
    assert.equal(h.requests[0].maxTokens, undefined, 'spend meters estimate from maxTokens');
    assert.equal(h.requests[0].outputCap, 65_536);
  });
});
