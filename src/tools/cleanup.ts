// Per-session resources (backends, background processes) register how to release them; the
// session runs the hooks when it closes.
import type { ToolServices } from './types.ts';

type Hook = () => void | Promise<void>;

const KEY = 'cleanup_hooks';

/** Registers `fn` to run when the session closes. Returns a function that unregisters it. */
export function onSessionClose(services: ToolServices, fn: Hook): () => void {
  let hooks = services.state.get(KEY) as Set<Hook> | undefined;
  if (!hooks) {
    hooks = new Set();
    services.state.set(KEY, hooks);
  }
  hooks.add(fn);
  return () => hooks!.delete(fn);
}

/** Runs (and forgets) every registered hook; errors are swallowed so one cannot block the rest. */
export async function runSessionCleanup(services: ToolServices): Promise<void> {
  const hooks = services.state.get(KEY) as Set<Hook> | undefined;
  if (!hooks) return;
  services.state.delete(KEY);
  await Promise.all([...hooks].map(async (h) => {
    try {
      await h();
    } catch {
      /* best effort */
    }
  }));
}
