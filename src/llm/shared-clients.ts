// SDK clients (OpenAI, Anthropic) shared by every session of a process that talks to the same
// endpoint with the same credentials and settings. An SDK client holds only its configuration (key,
// base URL, headers, timeout, fetch) and ~40 resource objects; it keeps no per-conversation state.
// The gateway used to build three per warm session (main model, titles, background review: 600 for
// 200 chats, all in the old generation). The cache key is every option the client is built from —
// the API key included — so two sessions share a client only when their requests would be
// byte-identical in credentials and headers; a different key, URL, header or timeout is a different
// client. Keys live only in this in-memory map, never in anything logged.

/** Most clients kept (least recently used dropped first; an in-flight request keeps its own). */
const MAX_CLIENTS = 64;

// Per fetch implementation (tests inject their own), then per configuration.
const byFetch = new WeakMap<object, Map<string, unknown>>();

/**
 * The client made by `make` for this configuration, reused while it stays in the cache. `config`
 * must list everything `make` reads (it is compared as JSON); `fetch` is compared by identity.
 */
export function sharedClient<T>(kind: string, config: Record<string, unknown>, fetch: object, make: () => T): T {
  let clients = byFetch.get(fetch);
  if (!clients) byFetch.set(fetch, (clients = new Map()));
  const key = `${kind}\u0000${JSON.stringify(config)}`;
  const hit = clients.get(key) as T | undefined;
  if (hit !== undefined) {
    // Most recently used last.
    clients.delete(key);
    clients.set(key, hit);
    return hit;
  }
  const made = make();
  clients.set(key, made);
  if (clients.size > MAX_CLIENTS) clients.delete(clients.keys().next().value!);
  return made;
}
