// Which web backend is configured: `web.backend` when set, else the first whose key is present.
// Kept apart from the adapters so deciding tool availability loads nothing heavy.

export const WEB_BACKENDS = ['firecrawl', 'tavily', 'exa', 'parallel', 'searxng'] as const;

const NEEDS: Record<string, string> = {
  firecrawl: 'FIRECRAWL_API_KEY',
  tavily: 'TAVILY_API_KEY',
  exa: 'EXA_API_KEY',
  parallel: 'PARALLEL_API_KEY',
  searxng: 'SEARXNG_URL',
};

/** Extraction APIs exist for every backend but SearXNG (pages are then fetched locally). */
export const HAS_EXTRACT = new Set(['firecrawl', 'tavily', 'exa', 'parallel']);

function configured(name: string, env: NodeJS.ProcessEnv): boolean {
  if (name === 'firecrawl') return !!(env.FIRECRAWL_API_KEY || env.FIRECRAWL_API_URL);
  return !!env[NEEDS[name]];
}

/**
 * The backend's name; `{error}` when web.backend names one that is unknown or has no key; null
 * when none is configured. Keys: FIRECRAWL_API_KEY (or FIRECRAWL_API_URL), TAVILY_API_KEY,
 * EXA_API_KEY, PARALLEL_API_KEY, SEARXNG_URL.
 */
export function webBackendName(env: NodeJS.ProcessEnv, wanted?: string): string | { error: string } | null {
  const want = wanted?.trim().toLowerCase();
  if (want) {
    if (!NEEDS[want]) return { error: `web.backend "${want}" is not known (use one of: ${WEB_BACKENDS.join(', ')}).` };
    return configured(want, env) ? want : { error: `web.backend is "${want}" but ${NEEDS[want]} is not set. Add it to ~/.hermes/.env.` };
  }
  return WEB_BACKENDS.find((n) => configured(n, env)) ?? null;
}
