// ha_list_entities: Home Assistant entities with their state, by domain or area (friendly name).
import type { Zod } from '../zod.ts';
import { hass, HASS_REQUIREMENT, hassConfigured } from '../homeassistant/client.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) =>
  z.object({
    domain: z.string().optional().describe('Only this domain: light, switch, climate, sensor, binary_sensor, cover, fan, media_player…'),
    area: z.string().optional().describe('Only entities whose name contains this (a room: "living room", "kitchen")'),
  });

export default defineTool({
  name: 'ha_list_entities',
  toolset: 'homeassistant',
  emoji: '🏠',
  parallelSafe: true,
  description: 'List Home Assistant entities (id, state, friendly name), optionally filtered by domain or area.',
  schema,
  check: (s) => hassConfigured(s.env),
  requirement: HASS_REQUIREMENT,
  async handler(a, ctx) {
    const states = (await hass(ctx.env, 'GET', '/states')) as { entity_id: string; state: string; attributes?: { friendly_name?: string } }[];
    const area = a.area?.toLowerCase();
    const out = states
      .filter((s) => !a.domain || s.entity_id.startsWith(`${a.domain}.`))
      .filter((s) => !area || `${s.attributes?.friendly_name ?? ''} ${s.entity_id}`.toLowerCase().replace(/_/g, ' ').includes(area))
      .slice(0, 200)
      .map((s) => ({ entity_id: s.entity_id, state: s.state, name: s.attributes?.friendly_name ?? null }));
    return JSON.stringify({ count: out.length, entities: out });
  },
});
