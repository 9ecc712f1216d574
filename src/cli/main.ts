// Entry point of the `hermes` command. Keep this file tiny: `hermes --version` must cost little
// more than starting Node, so everything else is imported only when a command needs it.
import pkg from '../../package.json' with { type: 'json' };

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version')) {
  // Straight to fd 1: process.stdout would load Node's stream modules for this one line.
  try {
    process.getBuiltinModule('node:fs').writeSync(1, `hermes ${pkg.version}\n`);
  } catch {
    // stdout closed (`hermes --version | true`): nothing to say.
  }
} else {
  const { main } = await import('./program.ts');
  await main(argv);
}
