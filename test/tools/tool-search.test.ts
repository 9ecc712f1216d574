// The prompt budget: rarely used toolsets stay out of the request behind tool_search, which loads
// their schemas on demand. Through the real `hermes chat -q` binary against the fake LLM and a fake
// Home Assistant: the model searches, the loaded tool is offered from the next request on (appended,
// so the request prefix stays byte-stable) and runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { selectTools } from '../../src/tools/defs/tool-search.ts';
import { deferredToolsets } from '../../src/tools/toolsets.ts';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeHass, type FakeHass } from '../helpers/fake-homeassistant.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
let hass: FakeHass;
before(async () => {
  fake = await startFakeLlm();
  hass = await startFakeHass();
  hass.setState('light.kitchen', 'on', { brightness: 200 });
});
after(async () => {
  await fake.close();
  await hass.close();
});

const toolNames = (r: RecordedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
const toolResults = (r: RecordedRequest): string[] => (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => String(m.content));
const env = () => ({ HASS_TOKEN: hass.token, HASS_URL: hass.url });

describe('tool_search: deferred toolsets loaded on demand', () => {
  it('the model searches, then calls the loaded tool; earlier tools and the system prompt stay byte-identical', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const n = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'home assistant state' } }] },
      { toolCalls: [{ name: 'ha_get_state', arguments: { entity_id: 'light.kitchen' } }] },
      { text: 'The kitchen light is on.' },
    );
    const r = await hermes(['chat', '-q', 'is the kitchen light on?'], { home, env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /kitchen light is on/);
    const [first, second, third] = fake.requests.slice(n);
    const names1 = toolNames(first);
    assert.ok(names1.includes('tool_search') && names1.includes('terminal'), names1.join(','));
    assert.ok(!names1.some((x) => x.startsWith('ha_') || x.startsWith('browser_')), `deferred tools sent: ${names1.join(',')}`);
    assert.ok(names1.length >= 18, `only ${names1.length} tools`);
    const search = first.body.tools.find((t: { function: { name: string } }) => t.function.name === 'tool_search');
    assert.match(search.function.description, /homeassistant: ha_list_entities, ha_get_state/);
    assert.match(search.function.description, /browser: browser_navigate/);
    // The search loaded ha_get_state; it is appended after the tools already offered.
    assert.match(toolResults(second)[0], /"loaded":\[\{"name":"ha_get_state"/);
    const names2 = toolNames(second);
    assert.deepEqual(names2.slice(0, names1.length), names1);
    assert.ok(names2.slice(names1.length).includes('ha_get_state'), names2.join(','));
    assert.equal(JSON.stringify(second.body.tools.slice(0, names1.length)), JSON.stringify(first.body.tools));
    assert.equal(JSON.stringify(second.body.messages[0]), JSON.stringify(first.body.messages[0]));
    // The loaded tool ran against Home Assistant.
    assert.match(toolResults(third)[1], /"entity_id":"light\.kitchen","state":"on"/);
  });

  it('a deferred tool called by name without searching is loaded and runs', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'ha_get_state', arguments: { entity_id: 'light.kitchen' } }] }, { text: 'on' });
    const r = await hermes(['chat', '-q', 'kitchen?'], { home, env: env() });
    assert.equal(r.code, 0, r.stderr);
    const [, second] = fake.requests.slice(n);
    assert.match(toolResults(second)[0], /"state":"on"/);
    assert.ok(toolNames(second).includes('ha_get_state'));
  });

  it('toolsets named directly are sent in full; tool_search.enabled: false sends everything', async () => {
    let n = fake.requests.length;
    fake.enqueue({ text: 'ok' });
    let r = await hermes(['chat', '-q', 'hi', '-t', 'file,homeassistant'], { home: homeWithModel(fake.openaiBaseUrl), env: env() });
    assert.equal(r.code, 0, r.stderr);
    let names = toolNames(fake.requests[n]);
    assert.ok(names.includes('ha_get_state') && names.includes('read_file'), names.join(','));
    assert.ok(!names.includes('tool_search'));

    n = fake.requests.length;
    fake.enqueue({ text: 'ok' });
    r = await hermes(['chat', '-q', 'hi'], { home: homeWithModel(fake.openaiBaseUrl, 'tool_search:\n  enabled: false\n'), env: env() });
    assert.equal(r.code, 0, r.stderr);
    names = toolNames(fake.requests[n]);
    assert.ok(names.includes('ha_get_state') && names.includes('browser_navigate') && !names.includes('tool_search'), names.join(','));
  });
});

describe('tool_search in subagents: delegate_task children keep the same prompt budget', () => {
  it('a child defers what its parent defers, loads a deferred tool through its own tool_search, and runs it', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const n = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Check the kitchen light' } }] },
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'homeassistant' } }] },
      { toolCalls: [{ name: 'ha_get_state', arguments: { entity_id: 'light.kitchen' } }] },
      { text: 'The kitchen light is on.' },
      { text: 'Your kitchen light is on.' },
    );
    const r = await hermes(['chat', '-q', 'delegate: is the kitchen light on?'], { home, env: env() });
    assert.equal(r.code, 0, r.stderr);
    const [parent, child1, child2, child3] = fake.requests.slice(n);
    const parentNames = toolNames(parent);
    const childNames = toolNames(child1);
    assert.match(child1.body.messages[0].content, /focused subagent/);
    assert.ok(childNames.includes('tool_search') && childNames.includes('read_file'), childNames.join(','));
    assert.ok(!childNames.some((x) => x.startsWith('ha_') || x.startsWith('browser_')), `deferred tools sent to the child: ${childNames.join(',')}`);
    assert.ok(!childNames.includes('delegate_task') && !childNames.includes('clarify'), childNames.join(','));
    assert.ok(childNames.length < parentNames.length, `${childNames.length} vs ${parentNames.length}`);
    const search = child1.body.tools.find((t: { function: { name: string } }) => t.function.name === 'tool_search');
    assert.match(search.function.description, /homeassistant: ha_list_entities/);
    assert.ok(toolNames(child2).includes('ha_get_state'), toolNames(child2).join(','));
    assert.match(toolResults(child3).at(-1)!, /"entity_id":"light\.kitchen","state":"on"/);
    // The parent's own list did not grow: the child loaded into its own session.
    assert.deepEqual(toolNames(fake.requests[n + 4]), parentNames);
  });

  it('toolsets given to the child by name are sent in full', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Lights', toolsets: ['homeassistant', 'file'] } }] }, { text: 'child' }, { text: 'parent' });
    const r = await hermes(['chat', '-q', 'delegate'], { home, env: env() });
    assert.equal(r.code, 0, r.stderr);
    const names = toolNames(fake.requests[n + 1]);
    assert.ok(names.includes('ha_get_state') && names.includes('read_file') && !names.includes('tool_search'), names.join(','));
  });
});

describe('tool_search selection and the deferral rule', () => {
  const entries = [
    { name: 'browser_navigate', toolset: 'browser', description: 'Open a URL in the browser' },
    { name: 'browser_click', toolset: 'browser', description: 'Click an element' },
    { name: 'ha_call_service', toolset: 'homeassistant', description: 'Call a Home Assistant service (turn on a light)' },
    { name: 'text_to_speech', toolset: 'tts', description: 'Speak text as audio' },
  ];
  it('selects by toolset, exact names, then keywords', () => {
    assert.deepEqual(selectTools(entries, 'browser').map((e) => e.name), ['browser_navigate', 'browser_click']);
    assert.deepEqual(selectTools(entries, 'text_to_speech, browser_click').map((e) => e.name), ['browser_click', 'text_to_speech']);
    assert.equal(selectTools(entries, 'turn on the light')[0].name, 'ha_call_service');
    assert.deepEqual(selectTools(entries, 'speech audio', 1).map((e) => e.name), ['text_to_speech']);
    assert.deepEqual(selectTools(entries, 'kubernetes'), []);
  });
  it('defers every non-core toolset reached through a platform toolset, small MCP servers excepted', () => {
    const reg = new Map([
      ['file', ['read_file']],
      ['browser', ['browser_navigate']],
      ['some_plugin', ['plugin_tool']],
      ['mcp-small', ['a', 'b']],
      ['mcp-big', ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']],
    ]);
    assert.deepEqual([...deferredToolsets(['hermes-cli'], reg)].sort(), ['browser', 'mcp-big', 'some_plugin']);
    assert.deepEqual([...deferredToolsets(['hermes-cli', 'browser', 'big'], reg)].sort(), ['some_plugin']);
  });
});
