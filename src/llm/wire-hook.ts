// "This request is going out now": a caller that must know whether a request reached the other side
// (the gateway's delivery ledger, around a reply) runs its send inside `withWireHook(fn, send)`.
// nodeFetch (http.ts) writes all of the request but its last byte to the connected socket, and once
// the kernel has taken that, calls `fn` and writes the last byte in the same synchronous step: a
// process killed before `fn` sent no request the other side could act on, one killed after it sent
// the whole request. A hook that records asynchronously (a ledger in PostgreSQL) returns a promise:
// the last byte waits for it.
// node:async_hooks is loaded on the first use only (never on the one-shot path).
import type { AsyncLocalStorage } from 'node:async_hooks';

type Hook = () => void | Promise<void>;
let als: AsyncLocalStorage<Hook> | undefined;

/** The hook of the send running in this async context, if any. */
export function wireHook(): Hook | undefined {
  return als?.getStore();
}

export function withWireHook<T>(hook: Hook, send: () => T): T {
  if (!als) {
    const m = process.getBuiltinModule('node:async_hooks') as typeof import('node:async_hooks');
    als = new m.AsyncLocalStorage<Hook>();
  }
  return als.run(hook, send);
}
