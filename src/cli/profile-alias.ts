// Profile aliases: a wrapper script `~/.local/bin/<name>` that runs `hermes -p <profile> "$@"`, as
// Hermes makes them (`hermes profile alias <name> [--name <alias>] [--remove]`, and on create unless
// --no-alias). A wrapper is only written over a file this command wrote (it carries a marker line),
// and never under a name another command on PATH already answers to.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../state/paths.ts';
import { canonicalProfile, profileExists } from '../state/profiles.ts';
import { CliError } from './errors.ts';

const MARKER = '# hermes profile alias';

export function aliasDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME || homedir(), '.local', 'bin');
}

const ours = (file: string): boolean => {
  try {
    return readFileSync(file, 'utf8').includes(MARKER);
  } catch {
    return false;
  }
};

/** Another program on PATH with this name (outside the alias folder), or null. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  const own = aliasDir(env);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || dir === own) continue;
    const f = join(dir, name);
    try {
      if (statSync(f).isFile()) return f;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** Writes the wrapper; returns its path, or throws (CliError) saying why it cannot. */
export function writeAlias(profile: string, aliasName = profile, env: NodeJS.ProcessEnv = process.env): string {
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/.test(aliasName)) throw new CliError(`"${aliasName}" is not a usable command name (letters, digits, ".", "_" or "-").`);
  const file = join(aliasDir(env), aliasName);
  if (existsSync(file) && !ours(file)) throw new CliError(`${file} exists and was not written by Hermes; pick another name with --name <alias>.`);
  const clash = onPath(aliasName, env);
  if (clash) throw new CliError(`"${aliasName}" would shadow ${clash}; pick another name with --name <alias>.`);
  mkdirSync(aliasDir(env), { recursive: true });
  const bin = join(packageRoot(), 'bin', 'hermes.mjs');
  writeFileSync(file, `#!/bin/sh\n${MARKER} for profile '${profile}' (remove with: hermes profile alias ${profile} --remove)\nexec "${bin}" -p ${profile} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Removes a wrapper this command wrote; false when there was none. */
export function removeAlias(aliasName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = join(aliasDir(env), aliasName);
  if (!existsSync(file)) return false;
  if (!ours(file)) throw new CliError(`${file} was not written by Hermes; left in place.`);
  rmSync(file, { force: true });
  return true;
}

/**
 * After `profile rename`: every wrapper this command wrote for `from` now runs `to`. The one named
 * after the profile moves to the new name (when that name is free); custom-named ones stay where
 * they are. Returns one line per change for the person to read.
 */
export function moveAliases(from: string, to: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = aliasDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const notes: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    if (!ours(file) || !readFileSync(file, 'utf8').includes(`for profile '${from}'`)) continue;
    if (name === from) {
      try {
        const moved = writeAlias(to, to, env);
        rmSync(file, { force: true });
        notes.push(`✓ Alias moved: ${moved} runs \`hermes -p ${to}\`.`);
      } catch (e) {
        notes.push(retarget(file, name, to, env, ` but kept its name: ${(e as Error).message}`));
      }
    } else notes.push(retarget(file, name, to, env, '.'));
  }
  return notes;
}

function retarget(file: string, name: string, to: string, env: NodeJS.ProcessEnv, tail: string): string {
  try {
    writeAlias(to, name, env);
    return `✓ Alias ${file} now runs \`hermes -p ${to}\`${tail}`;
  } catch (e) {
    return `! The alias ${file} could not be updated (${(e as Error).message}); fix it with: hermes profile alias ${to} --name ${name}`;
  }
}

/** Whether `~/.local/bin` is on PATH (else the alias needs PATH set up). */
const aliasDirOnPath = (env: NodeJS.ProcessEnv) => (env.PATH ?? '').split(delimiter).includes(aliasDir(env));

/** `hermes profile alias <name> [--name <alias>] [--remove]`. */
export async function alias(name: string, o: { remove?: boolean; name?: string }): Promise<void> {
  let n: string;
  try {
    n = canonicalProfile(name);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  if (!profileExists(n)) throw new CliError(`Profile '${n}' does not exist. Create it with: hermes profile create ${n}`);
  const aliasName = o.name ?? n;
  if (o.remove) {
    process.stdout.write(removeAlias(aliasName) ? `✓ Removed the alias ${join(aliasDir(), aliasName)}.\n` : `No alias ${join(aliasDir(), aliasName)} to remove.\n`);
    return;
  }
  const file = writeAlias(n, aliasName);
  process.stdout.write(`✓ ${file} runs \`hermes -p ${n}\`.${aliasDirOnPath(process.env) ? '' : ` Add ${aliasDir()} to PATH to use it as \`${aliasName}\`.`}\n`);
}
