// Tool processes run in process groups of their own (so a timeout or an interrupt can stop a whole
// tree). That also means a signal that stops Hermes does not reach them. This module remembers the
// live groups and ends them when Hermes is terminated (SIGTERM, SIGHUP, or SIGINT that nothing
// else handles) or exits, so no tool process is left running on its own. (A SIGKILL of Hermes
// cannot be caught; nothing can be done about that from inside.)

const live = new Set<number>();
let installed = false;

function signalGroups(signal: NodeJS.Signals): void {
  for (const pgid of live) {
    try {
      process.kill(-pgid, signal);
    } catch {
      live.delete(pgid); // the group is gone
    }
  }
}

/** Whether any process of group `pgid` is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => signalGroups('SIGKILL'));
  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    const onSignal = () => {
      // Another handler owns this signal (the REPL's Ctrl-C, the gateway's graceful stop): it
      // decides, and the exit hook above still ends the groups when the process goes.
      if (process.listenerCount(sig) > 1) return;
      signalGroups('SIGTERM');
      const t = setTimeout(() => {
        signalGroups('SIGKILL');
        process.off(sig, onSignal);
        process.kill(process.pid, sig); // die of the signal, as Node would have
      }, live.size ? 300 : 0);
      t.unref?.();
    };
    process.on(sig, onSignal);
  }
}

/** Remembers the process group led by `pid` until it is released. */
export function trackGroup(pid: number | undefined): void {
  if (!pid) return;
  for (const g of live) if (!groupAlive(g)) live.delete(g);
  live.add(pid);
  install();
}

/** The group's leader has exited: forget the group unless processes of it are still running. */
export function releaseGroup(pid: number | undefined): void {
  if (pid && !groupAlive(pid)) live.delete(pid);
}

/** The groups being tracked (for tests and diagnostics). */
export function trackedGroups(): number[] {
  return [...live];
}
