// Home Assistant over its WebSocket API (conversation events in; replies as response events over
// REST) against a fake Home Assistant; plus state changes and the ha_* tools.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runGateway, type RunningGateway } from '../../../src/gateway/daemon.ts';
import { startFakeHass, type FakeHass } from '../../helpers/fake-homeassistant.ts';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { gatewayHome, until } from '../helpers.ts';
import { runConformance } from './suite.ts';

let ha: FakeHass;
const replies = (conv: string) => ha.calls.filter((c) => c.path === '/api/events/hermes_conversation_response' && c.body.conversation_id === conv);

runConformance({
  platform: 'homeassistant',
  limit: 50_000,
  owner: 'kitchen',
  stranger: 'garage',
  impostor: 'shed',
  trustedSenders: 'Home Assistant authenticates its own events with the token; there is no stranger to pair',
  noEdits: 'replies are notifications and events, which cannot be edited',
  noImages: 'conversation events carry text only',
  async start() {
    ha = await startFakeHass();
    return { env: { HASS_URL: ha.url, HASS_TOKEN: ha.token } };
  },
  async ready() {
    const deadline = performance.now() + 10_000;
    while (ha.sockets() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => ha.close(),
  dmChat: (user) => `conversation:${user}`,
  async send(user, text) {
    ha.fire('hermes_conversation', { text, conversation_id: user, user: `person.${user}` });
  },
  messages: (user) => replies(user).map((c, i) => ({ id: String(i), text: String(c.body.text), edits: 0 })),
  async drop() {
    ha.drop();
  },
  connections: () => ha.connections(),
});

describe('home assistant: state changes and tools', () => {
  let llm: FakeLlm;
  let gw: RunningGateway;
  let hass: FakeHass;

  before(async () => {
    llm = await startFakeLlm();
    hass = await startFakeHass();
    hass.states.set('light.kitchen', { entity_id: 'light.kitchen', state: 'off', attributes: { friendly_name: 'Kitchen Light' } });
    hass.states.set('binary_sensor.front_door', { entity_id: 'binary_sensor.front_door', state: 'off', attributes: { friendly_name: 'Front Door' } });
    const t = gatewayHome({ llmUrl: llm.openaiBaseUrl, env: { HASS_URL: hass.url, HASS_TOKEN: hass.token }, yaml: 'platforms:\n  homeassistant:\n    enabled: true\n    extra:\n      watch_domains: [binary_sensor]\n      ignore_entities: [binary_sensor.noisy]\n      cooldown_seconds: 0\n' });
    gw = await runGateway({ home: t.home, config: t.config, env: t.env, cron: false, kanban: false, backgroundTasks: false, platforms: ['homeassistant'] });
    await until(() => hass.sockets() > 0, 10_000, 'the websocket');
  });

  after(async () => {
    await gw?.shutdown('test done');
    await hass?.close();
    await llm?.close();
  });

  test('a watched state change reaches the agent; it turns a light on with ha_call_service; the reply is a persistent notification', async () => {
    llm.enqueue({ toolCalls: [{ name: 'ha_call_service', arguments: { domain: 'light', service: 'turn_on', entity_id: 'light.kitchen', data: { brightness: 200 } } }] }, { text: 'Front door opened; I turned the kitchen light on.' });
    hass.setState('light.kitchen', 'off'); // not watched: ignored
    hass.setState('binary_sensor.noisy', 'on'); // ignored entity
    hass.setState('binary_sensor.front_door', 'on');
    const note = await until(() => hass.calls.find((c) => c.path === '/api/services/persistent_notification/create'), 15_000, 'the notification');
    assert.equal(note.body.title, 'Hermes Agent');
    assert.match(note.body.message, /turned the kitchen light on/);
    const first = llm.requests.find((r) => JSON.stringify(r.body).includes('Front Door'))!;
    const user = first.body.messages[first.body.messages.length - 1].content;
    assert.match(user, /\[Home Assistant\] Front Door: triggered \(was cleared\)/);
    assert.ok(!llm.requests.some((r) => JSON.stringify(r.body.messages).includes('noisy')), 'ignored entities never reach the model');
    assert.deepEqual(hass.calls.find((c) => c.path === '/api/services/light/turn_on')?.body, { brightness: 200, entity_id: 'light.kitchen' });
    assert.equal(hass.states.get('light.kitchen')?.state, 'on');
    const tools = first.body.tools.map((x: { function: { name: string } }) => x.function.name);
    for (const n of ['ha_list_entities', 'ha_get_state', 'ha_list_services', 'ha_call_service']) assert.ok(tools.includes(n), `${n} offered`);
  });

  test('blocked service domains and bad entity ids are refused', async () => {
    llm.enqueue({ toolCalls: [{ name: 'ha_call_service', arguments: { domain: 'shell_command', service: 'run' } }, { name: 'ha_get_state', arguments: { entity_id: 'Light Kitchen' } }] }, { text: 'Could not do that.' });
    hass.setState('binary_sensor.front_door', 'off');
    await until(() => hass.calls.filter((c) => c.path === '/api/services/persistent_notification/create').length >= 2, 15_000, 'the second notification');
    const req = llm.requests[llm.requests.length - 1];
    const tools = req.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content).join('\n');
    assert.match(tools, /shell_command domain is blocked/);
    assert.match(tools, /is not an entity id/);
    assert.ok(!hass.calls.some((c) => c.path.startsWith('/api/services/shell_command')));
  });
});
