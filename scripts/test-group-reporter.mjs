// node:test reporter for a group of small test files run in one process (scripts/test.mjs): one JSON
// line per finished test or suite, with its file, so the runner can report each file on its own.
export default async function* groupReporter(source) {
  for await (const ev of source) {
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    const d = ev.data;
    yield `${JSON.stringify({
      group: {
        file: d.file,
        nesting: d.nesting,
        suite: d.details?.type === 'suite',
        ok: ev.type === 'test:pass',
        skip: !!(d.skip || d.todo),
        ms: d.details?.duration_ms ?? 0,
      },
    })}\n`;
  }
}
