// Per-session resources (backends, background processes) register how to release them; the
// session runs the hooks when it closes.
import { defineSlot } from '../state/slots.ts';
import type { ToolSession } from './types.ts';

type Hook = () => void | Promise<void>;

const hooksSlot = defineSlot('cleanup_hooks', () => new Set<Hook>());

/** Registers `fn` to run when the session closes. Returns a function that unregisters it. */
export function onSessionClose(services: ToolSession, fn: Hook): () => void {
  const hooks = services.slots.get(hooksSlot);
  hooks.add(fn);
  return () => hooks.delete(fn);
}

/** Runs (and forgets) every registered hook; errors are swallowed so one cannot block the rest. */
export async function runSessionCleanup(services: ToolSession): Promise<void> {
  const hooks = services.slots.peek(hooksSlot);
  if (!hooks) return;
  services.slots.delete(hooksSlot);
  await Promise.all([...hooks].map(async (h) => {
    try {
      await h();
    } catch {
      /* best effort */
    }
  }));
}
