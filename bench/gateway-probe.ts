// Preloaded into the benchmarked gateway (`node --import bench/gateway-probe.ts … gateway run`)
// when it is started with an IPC channel: answers the bench's questions about its memory without
// any code in the product. Messages (each answered with the same id):
//   {cmd: 'mem'} → {mem: process.memoryUsage()}
//   {cmd: 'snap', path} → {file}: v8.writeHeapSnapshot (the gateway stops while it writes)
//   {cmd: 'alloc-start'} / {cmd: 'alloc-stop', path}: the sampling heap profiler, garbage included
//   (with BENCH_GATEWAY_ALLOC_OLD set, only what outlived the young generation: what was promoted
//   to the old generation, whether it is still alive or a major GC collected it later — the
//   garbage that makes mark-compacts frequent)
//   (every allocation, not only what survives), written as a .heapprofile DevTools opens.
//   {cmd: 'stalls'} → {stalls}: with BENCH_GATEWAY_TIMELINE set, the event-loop stalls (a 2 ms timer
//   late by > 10 ms) and GC pauses (> 5 ms) since start, as [epoch ms, ms, what], for the timeline.
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';

if (process.send) {
  let inspector: Session | null = null;
  const stalls: [number, number, string][] = [];
  if (process.env.BENCH_GATEWAY_TIMELINE) {
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      if (now - last > 12) stalls.push([performance.timeOrigin + last, now - last - 2, 'loop']);
      last = now;
    }, 2).unref();
    const kinds: Record<number, string> = { [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'gc-major', [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'gc-minor', [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'gc-incremental', [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'gc-weakcb' };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.duration > 5) stalls.push([performance.timeOrigin + e.startTime, e.duration, kinds[((e as unknown as { detail: { kind: number } }).detail).kind] ?? 'gc']);
    }).observe({ entryTypes: ['gc'] });
  }
  const handle = async (m: { cmd: string; path?: string }): Promise<Record<string, unknown>> => {
    if (m.cmd === 'mem') return { mem: process.memoryUsage() };
    if (m.cmd === 'stalls') return { stalls, clock: [Number(process.hrtime.bigint()) / 1e6, performance.timeOrigin + performance.now()] };
    if (m.cmd === 'snap') return { file: v8.writeHeapSnapshot(m.path) };
    if (m.cmd === 'alloc-start') {
      inspector = new Session();
      inspector.connect();
      await inspector.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !process.env.BENCH_GATEWAY_ALLOC_OLD });
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
