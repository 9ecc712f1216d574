// The outbound webhook deliveries still under way (src/plugins/outbound-webhooks.ts), kept apart so a
// surface about to exit can wait for them without loading the webhook code when nothing was sent.
const pending = new Set<Promise<unknown>>();

export function trackOutbound(p: Promise<unknown>): void {
  pending.add(p);
  void p.finally(() => pending.delete(p));
}

/** Waits for background deliveries still under way (at most `timeoutMs`); true when all finished. */
export async function flushOutbound(timeoutMs = 5000): Promise<boolean> {
  if (!pending.size) return true;
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([Promise.allSettled([...pending]).then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
  clearTimeout(timer);
  return done;
}
