// What the bundled LLM SDKs (openai, @anthropic-ai/sdk) see as the globals `Headers`, `FormData` and
// `Response` (scripts/build.mjs rewrites their references to these exports). In Node those globals
// live in the bundled undici, which loads, with http2, on first touch: about as long as starting Node
// itself. The SDKs touch them on every request (`new Headers()` to merge headers, `body instanceof
// FormData`), although hermes sends the request with its own nodeFetch (src/llm/http.ts).
// - `Headers` is src/llm/fetch-headers.ts's, a Fetch-standard Headers: the same class as nodeFetch's
//   response headers, so the SDKs see those as Headers too.
// - `FormData` and `Response` are the real globals behind a proxy.
// `x instanceof` any of them reads the real global (loading undici) only when a class of that name is on
// x's prototype chain: a plain object or nodeFetch's Response cannot be a real one.
// The real SDK suites run against these in test/llm/sdk-fetch.test.ts (bundled as the build does).

import { mayBeReal } from '../src/llm/fetch-headers.ts';

export { Headers } from '../src/llm/fetch-headers.ts';

/**
 * The global `name` behind a proxy: constructing, calling and reading properties use the real one;
 * `x instanceof` it loads undici only for an object tagged `name`.
 */
function lazyGlobal(name: 'FormData' | 'Response'): unknown {
  const real = (): (new (...args: unknown[]) => object) => (globalThis as unknown as Record<string, new (...args: unknown[]) => object>)[name];
  const hasInstance = (x: unknown): boolean => typeof x === 'object' && x !== null && mayBeReal(x, name) && x instanceof real();
  const proxy: object = new Proxy(function placeholder() {}, {
    get: (_t, key) => (key === Symbol.hasInstance ? hasInstance : Reflect.get(real(), key)),
    has: (_t, key) => Reflect.has(real(), key),
    construct: (_t, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    apply: (_t, self, args) => Reflect.apply(real() as unknown as (...a: unknown[]) => unknown, self, args),
  });
  return proxy;
}

export const FormData = lazyGlobal('FormData') as typeof globalThis.FormData;
export const Response = lazyGlobal('Response') as typeof globalThis.Response;
