// What a SQLite (or file-system) error means for the database file it happened on, in one line a
// person can act on: which file, what is wrong in plain words (the code in parentheses, never alone),
// and what to do — `hermes sessions repair` / `recover` for a damaged state.db, free space for a full
// disk. node:sqlite's errors name no file, so every connection Hermes opens on state.db or kanban.db
// is guarded (`guardConnection`): an error of any statement gets its file and this wording, keeping
// `code`, `errcode` and `errstr` (busy retries still read them).
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from './sqlite.ts';

/** What went wrong with a database file, when it is about the file (not the SQL). */
export type DbFault = 'full' | 'corrupt' | 'notadb' | 'readonly' | 'cantopen' | 'io' | 'busy' | 'permission';

/** Which database: advice differs (state.db has repair and recover). */
export type DbKind = 'state' | 'kanban';

const TAGGED = Symbol.for('hermes.dbErrorFile');

interface SqliteLike {
  code?: string;
  errcode?: number;
  errstr?: string;
  message?: string;
  path?: string;
  [TAGGED]?: string;
}

/** True for an error thrown by node:sqlite. */
export function isSqliteError(e: unknown): boolean {
  const x = e as SqliteLike | null;
  return !!x && typeof x === 'object' && (x.code === 'ERR_SQLITE_ERROR' || typeof x.errcode === 'number');
}

/** The file an error was already described for (by guardConnection or describeDbError), if any. */
export function dbErrorFile(e: unknown): string | undefined {
  return (e as SqliteLike | null)?.[TAGGED];
}

/** Whether the file system holding `file` has (next to) no space left. */
export function diskFull(file: string): boolean {
  try {
    const s = statfsSync(dirname(file));
    return Number(s.bavail) * Number(s.bsize) < 64 * 1024;
  } catch {
    return false;
  }
}

/** The fault an error reports about `file`, or null when it is not about the file (SQL, constraint). */
export function dbFault(e: unknown, file?: string): DbFault | null {
  const x = e as SqliteLike | null;
  if (!x || typeof x !== 'object') return null;
  if (typeof x.errcode === 'number') {
    switch (x.errcode & 0xff) {
      case 13:
        return 'full';
      case 11:
        return 'corrupt';
      case 26:
        return 'notadb';
      case 8:
        return 'readonly';
      case 14:
        return file && diskFull(file) ? 'full' : 'cantopen';
      case 10:
        // A full disk often shows as an I/O error (a WAL or journal that cannot grow).
        return file && diskFull(file) ? 'full' : 'io';
      case 5:
      case 6:
        return 'busy';
      case 23:
        return 'permission';
      default:
        return null;
    }
  }
  switch (x.code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'full';
    case 'EROFS':
      return 'readonly';
    case 'EIO':
      return 'io';
    case 'EACCES':
    case 'EPERM':
      return 'permission';
    default:
      return null;
  }
}

const SQLITE_NAMES: Record<number, string> = { 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 8: 'SQLITE_READONLY', 10: 'SQLITE_IOERR', 11: 'SQLITE_CORRUPT', 13: 'SQLITE_FULL', 14: 'SQLITE_CANTOPEN', 23: 'SQLITE_AUTH', 26: 'SQLITE_NOTADB' };

function codeName(e: SqliteLike): string {
  if (typeof e.errcode === 'number') return SQLITE_NAMES[e.errcode & 0xff] ?? `SQLite error ${e.errcode}`;
  return e.code ?? 'error';
}

function what(fault: DbFault, code: string): string {
  switch (fault) {
    case 'full':
      return `the disk is full (${code}), so nothing more can be saved in it`;
    case 'corrupt':
      return `the database is damaged (${code}: its disk image is malformed)`;
    case 'notadb':
      return `it is not a SQLite database, or its first page is damaged (${code})`;
    case 'readonly':
      return `it cannot be written: the file or its disk is read-only (${code})`;
    case 'cantopen':
      return `it cannot be opened (${code})`;
    case 'io':
      return `an input/output error (${code}): the disk may be failing`;
    case 'busy':
      return `another process holds it locked (${code})`;
    case 'permission':
      return `permission denied (${code})`;
  }
}

function advice(fault: DbFault, kind: DbKind | undefined, file: string): string {
  const state = kind === 'state';
  switch (fault) {
    case 'full':
      return state
        ? 'Free space on that disk, then run `hermes sessions repair --check-only` to check the file (what was saved before is kept).'
        : 'Free space on that disk and run the command again (what was saved before is kept).';
    case 'corrupt':
    case 'notadb':
      return state
        ? `Run \`hermes sessions repair\` (it backs the file up first); if that cannot fix it, \`hermes sessions recover --source ${file} --output <new.db>\` copies out everything that can still be read.`
        : kind === 'kanban'
          ? 'Restore it from a backup (`hermes import <backup.zip>`), or move it aside to start an empty board.'
          : 'Restore it from a backup, or move it aside.';
    case 'readonly':
    case 'permission':
      return 'Make the file and its folder writable by the user running Hermes.';
    case 'cantopen':
      return 'Check that its folder exists and the user running Hermes can write there.';
    case 'io':
      return state ? 'Check the disk, then run `hermes sessions repair --check-only`.' : 'Check the disk, then run the command again.';
    case 'busy':
      return 'Try again in a moment.';
  }
}

/** One line for an error on database `file`: the file, what is wrong, what to do. */
export function describeDbError(e: unknown, file: string, kind?: DbKind): string {
  const x = e as SqliteLike;
  if (x?.[TAGGED]) return x.message ?? String(e);
  const raw = (x?.errstr || x?.message || String(e)).replace(/\s+$/, '');
  const fault = dbFault(e, file);
  if (!fault) return `${file}: ${raw}`;
  return `${file}: ${what(fault, codeName(x ?? {}))}. ${advice(fault, kind, file)}`;
}

/**
 * Gives an error of database `file` its one-line description (in place, keeping code/errcode/errstr)
 * and returns it. Errors that are not SQLite's or the file system's are returned untouched.
 */
export function annotateDbError<T>(e: T, file: string, kind?: DbKind): T {
  const x = e as SqliteLike | null;
  if (!x || typeof x !== 'object' || x[TAGGED] || !(isSqliteError(e) || dbFault(e) !== null)) return e;
  try {
    const message = describeDbError(e, file, kind);
    Object.defineProperty(x, 'message', { value: message, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(x, TAGGED, { value: file, configurable: true, enumerable: false });
  } catch {
    /* a frozen error: left as it is */
  }
  return e;
}

const STATEMENT_METHODS = ['run', 'get', 'all', 'iterate'] as const;

function guardStatement(s: StatementSync, file: string, kind?: DbKind): StatementSync {
  const target = s as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of STATEMENT_METHODS) {
    const fn = target[name];
    if (typeof fn !== 'function') continue;
    target[name] = function (this: unknown) {
      try {
        // eslint-disable-next-line prefer-rest-params
        return fn.apply(s, arguments as unknown as unknown[]);
      } catch (e) {
        throw annotateDbError(e, file, kind);
      }
    };
  }
  return s;
}

/**
 * Makes every error of this connection (its exec, and the run/get/all/iterate of each statement it
 * prepares) name `file` and say what to do. The connection and its statements stay the same objects.
 */
export function guardConnection(db: DatabaseSync, file: string, kind?: DbKind): DatabaseSync {
  const target = db as unknown as Record<string, (...a: unknown[]) => unknown>;
  const prepare = target.prepare;
  const exec = target.exec;
  target.prepare = function (this: unknown) {
    try {
      // eslint-disable-next-line prefer-rest-params
      return guardStatement(prepare.apply(db, arguments as unknown as unknown[]) as StatementSync, file, kind);
    } catch (e) {
      throw annotateDbError(e, file, kind);
    }
  };
  target.exec = function (this: unknown) {
    try {
      // eslint-disable-next-line prefer-rest-params
      return exec.apply(db, arguments as unknown as unknown[]);
    } catch (e) {
      throw annotateDbError(e, file, kind);
    }
  };
  return db;
}
