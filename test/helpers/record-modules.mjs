// Loaded with `node --import`: records every module specifier the process resolves (ESM and
// require), every URL it loads (bin/hermes.mjs resolves the bundle's own chunks itself, so their
// specifiers never reach this resolve hook), and the built-in modules Node loaded for itself (as `node:<id>`, e.g. the undici behind
// the fetch globals), and writes them to $HERMES_RECORD_MODULES at exit. Used by the start-up guard test.
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    seen.add(specifier);
    return next(specifier, context);
  },
  load(url, context, next) {
    seen.add(url);
    return next(url, context);
  },
});
process.on('exit', () => {
  for (const m of process.moduleLoadList) if (m.startsWith('NativeModule ')) seen.add(`node:${m.slice('NativeModule '.length)}`);
  writeFileSync(process.env.HERMES_RECORD_MODULES, [...seen].join('\n'));
});
