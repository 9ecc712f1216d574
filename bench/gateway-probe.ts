// Preloaded into the benchmarked gateway (`node --import bench/gateway-probe.ts … gateway run`)
// when it is started with an IPC channel: answers the bench's questions about its memory without
// any code in the product. Messages (each answered with the same id):
//   {cmd: 'mem'} → {mem: process.memoryUsage()}
//   {cmd: 'snap', path} → {file}: v8.writeHeapSnapshot (the gateway stops while it writes)
//   {cmd: 'alloc-start'} / {cmd: 'alloc-stop', path}: the sampling heap profiler, garbage included
//   (every allocation, not only what survives), written as a .heapprofile DevTools opens.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';

if (process.send) {
  let inspector: Session | null = null;
  const handle = async (m: { cmd: string; path?: string }): Promise<Record<string, unknown>> => {
    if (m.cmd === 'mem') return { mem: process.memoryUsage() };
    if (m.cmd === 'snap') return { file: v8.writeHeapSnapshot(m.path) };
    if (m.cmd === 'alloc-start') {
      inspector = new Session();
      inspector.connect();
      await inspector.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return {};
    }
    if (m.cmd === 'alloc-stop' && inspector) {
      const { profile } = await inspector.post('HeapProfiler.stopSampling');
      inspector.disconnect();
      inspector = null;
      writeFileSync(m.path!, JSON.stringify(profile));
      return { file: m.path };
    }
    return { error: `unknown command ${m.cmd}` };
  };
  process.on('message', (m: { id: number; cmd: string; path?: string }) => {
    void handle(m).then(
      (r) => process.send!({ id: m.id, ...r }),
      (e: Error) => process.send!({ id: m.id, error: e.message }),
    );
  });
  // The channel must not keep the gateway alive once it is told to stop.
  process.channel?.unref();
}
