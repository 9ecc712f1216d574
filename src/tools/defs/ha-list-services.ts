// ha_list_services: the Home Assistant services (actions) per domain, with their fields.
import type { Zod } from '../zod.ts';
import { hass, HASS_REQUIREMENT, hassConfigured } from '../homeassistant/client.ts';
import { defineTool } from '../registry.ts';

const schema = (z: Zod) => z.object({ domain: z.string().optional().describe('Only this domain, e.g. light or climate') });

export default defineTool({
  name: 'ha_list_services',
  toolset: 'homeassistant',
  emoji: '🏠',
  parallelSafe: true,
  description: 'List Home Assistant services (what can be done to each kind of device) and the fields they take.',
  schema,
  check: (s) => hassConfigured(s.env),
  requirement: HASS_REQUIREMENT,
  async handler(a, ctx) {
    const all = (await hass(ctx.env, 'GET', '/services')) as { domain: string; services: Record<string, { description?: string; fields?: Record<string, unknown> }> }[];
    const out = all
      .filter((d) => !a.domain || d.domain === a.domain)
      .map((d) => ({ domain: d.domain, services: Object.fromEntries(Object.entries(d.services).map(([k, v]) => [k, { description: v.description ?? '', fields: Object.keys(v.fields ?? {}) }])) }));
    return JSON.stringify({ domains: out });
  },
});
