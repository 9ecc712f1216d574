// Writes still in flight (auth.json status updates from the credential pool): a surface that is
// about to call process.exit() waits for them first, so nothing is cut off half-way.
const pending = new Set<Promise<unknown>>();

export function track<T>(p: Promise<T>): Promise<T> {
  pending.add(p);
  const done = () => pending.delete(p);
  p.then(done, done);
  return p;
}

/** Resolves once every tracked write has finished (failures are the writer's to report). */
export async function flushPending(): Promise<void> {
  while (pending.size) await Promise.allSettled([...pending]);
}
