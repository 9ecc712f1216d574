// A stand-in `sudo` for tests of the password prompt: `-n` fails (a password is needed); `-S`
// reads the password from stdin and succeeds (printing `sudo-accepted`) only for the right one.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `<dir>/bin/sudo`; returns the bin folder to put first on PATH. */
export function fakeSudo(dir: string, password: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'sudo'),
    `#!/bin/sh\nif [ "$1" = "-n" ]; then exit 1; fi\nif [ "$1" = "-S" ]; then IFS= read -r pw; shift; [ "$1" = "-p" ] && shift 2; if [ "$pw" = "${password}" ]; then echo "sudo-accepted"; exit 0; fi; echo "Sorry, try again." >&2; exit 1; fi\nexit 1\n`,
  );
  chmodSync(join(bin, 'sudo'), 0o755);
  return bin;
}
