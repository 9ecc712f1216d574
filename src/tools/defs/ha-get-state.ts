// ha_get_state: one Home Assistant entity in detail (state, attributes, timestamps).
import type { Zod } from '../zod.ts';
import { ENTITY_ID, hass, HASS_REQUIREMENT, hassConfigured } from '../homeassistant/client.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) => z.object({ entity_id: z.string().describe('The entity, e.g. light.living_room or climate.thermostat') });

export default defineTool({
  name: 'ha_get_state',
  toolset: 'homeassistant',
  emoji: '🏠',
  parallelSafe: true,
  description: 'Get the state of one Home Assistant entity with all its attributes (brightness, temperatures, readings…).',
  schema,
  check: (s) => hassConfigured(s.env),
  requirement: HASS_REQUIREMENT,
  async handler(a, ctx) {
    if (!ENTITY_ID.test(a.entity_id)) return JSON.stringify({ error: `"${a.entity_id}" is not an entity id (domain.object_id, lower case)` });
    return JSON.stringify(await hass(ctx.env, 'GET', `/states/${a.entity_id}`));
  },
});
