// ha_call_service: control a device through a Home Assistant service. Domains that run code or
// make requests from the Home Assistant host (shell_command, python_script, hassio…) are refused.
import type { Zod } from '../zod.ts';
import { BLOCKED_DOMAINS, ENTITY_ID, hass, HASS_REQUIREMENT, hassConfigured } from '../homeassistant/client.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) =>
  z.object({
    domain: z.string().describe('Service domain: light, switch, climate, cover, media_player, fan, scene, script…'),
    service: z.string().describe('Service: turn_on, turn_off, toggle, set_temperature, open_cover…'),
    entity_id: z.string().optional().describe('The target entity, e.g. light.living_room'),
    data: z.record(z.string(), z.unknown()).optional().describe('Extra service data, e.g. {"brightness": 128}'),
  });

export default defineTool({
  name: 'ha_call_service',
  toolset: 'homeassistant',
  emoji: '🏠',
  description: 'Call a Home Assistant service to control a device (turn lights on, set the thermostat…).',
  schema,
  check: (s) => hassConfigured(s.env),
  requirement: HASS_REQUIREMENT,
  async handler(a, ctx) {
    if (BLOCKED_DOMAINS.includes(a.domain)) return JSON.stringify({ error: `The ${a.domain} domain is blocked: it runs code or makes requests on the Home Assistant host.` });
    if (!/^[a-z_][a-z0-9_]*$/.test(a.domain) || !/^[a-z_][a-z0-9_]*$/.test(a.service)) return JSON.stringify({ error: 'domain and service are lower-case names like light and turn_on' });
    if (a.entity_id && !ENTITY_ID.test(a.entity_id)) return JSON.stringify({ error: `"${a.entity_id}" is not an entity id` });
    const body = { ...(a.data ?? {}), ...(a.entity_id ? { entity_id: a.entity_id } : {}) };
    const changed = (await hass(ctx.env, 'POST', `/services/${a.domain}/${a.service}`, body)) as { entity_id: string; state: string }[] | null;
    return JSON.stringify({ success: true, changed: (changed ?? []).map((s) => ({ entity_id: s.entity_id, state: s.state })) });
  },
});
