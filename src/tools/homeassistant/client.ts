// The Home Assistant REST client the ha_* tools share: HASS_URL + HASS_TOKEN from the session's
// environment, service domains that run code or reach the network refused, entity ids validated.

export const BLOCKED_DOMAINS = ['shell_command', 'command_line', 'python_script', 'pyscript', 'hassio', 'rest_command'];
export const ENTITY_ID = /^[a-z_][a-z0-9_]*\.[a-z0-9_]+$/;

/** What the Home Assistant tools need, said where they are unavailable (`hermes status`, `hermes tools`). */
export const HASS_REQUIREMENT = 'needs HASS_TOKEN (a long-lived access token) and HASS_URL (default http://homeassistant.local:8123) in ~/.hermes/.env';

export function hassConfigured(env: NodeJS.ProcessEnv): boolean {
  return !!env.HASS_TOKEN;
}

export async function hass(env: NodeJS.ProcessEnv, method: string, path: string, body?: unknown): Promise<unknown> {
  const token = env.HASS_TOKEN;
  if (!token) throw new Error('Home Assistant is not configured: set HASS_TOKEN (and HASS_URL) in ~/.hermes/.env');
  const url = (env.HASS_URL || 'http://homeassistant.local:8123').replace(/\/+$/, '');
  const r = await fetch(`${url}/api${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (r.status === 401) throw new Error('Home Assistant refused the token (401): check HASS_TOKEN');
  if (r.status === 404) throw new Error(`Home Assistant has no ${path.replace(/^\/(states|services)\//, '')} (404)`);
  if (!r.ok) throw new Error(`Home Assistant answered HTTP ${r.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}
