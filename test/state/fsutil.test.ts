// readCachedByStamp: a small file read often is parsed again only when it changed (inode, size or
// mtime), and on every read while its mtime is within the last second (file times are coarse).
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readCachedByStamp } from '../../src/state/fsutil.ts';

describe('readCachedByStamp', () => {
  it('parses once while the file stays the same, again when it is replaced or removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermes-stamp-'));
    const file = join(dir, 'x.json');
    const seen: (string | undefined)[] = [];
    const parse = (text: string | undefined) => (seen.push(text), { text });
    const old = new Date(Date.now() - 60_000);

    assert.deepEqual(readCachedByStamp(file, parse), { text: undefined }, 'missing: parse(undefined)');
    writeFileSync(file, 'one');
    utimesSync(file, old, old);
    const a = readCachedByStamp(file, parse);
    assert.deepEqual(a, { text: 'one' });
    assert.equal(readCachedByStamp(file, parse), a, 'unchanged: the same value, not parsed again');
    assert.deepEqual(seen, [undefined, 'one']);

    // Another process replaces it (same size, same old mtime: the inode differs).
    writeFileSync(join(dir, 'tmp'), 'two');
    utimesSync(join(dir, 'tmp'), old, old);
    renameSync(join(dir, 'tmp'), file);
    assert.deepEqual(readCachedByStamp(file, parse), { text: 'two' });

    // Written just now: read again on every call until its mtime is a second old.
    writeFileSync(file, 'three');
    readCachedByStamp(file, parse);
    readCachedByStamp(file, parse);
    assert.deepEqual(seen.slice(2), ['two', 'three', 'three']);

    // Another parser of the same file gets its own value.
    const other = readCachedByStamp(file, (t) => t?.length);
    assert.equal(other, 5);

    rmSync(file);
    assert.deepEqual(readCachedByStamp(file, parse), { text: undefined }, 'removed: parse(undefined)');
    rmSync(dir, { recursive: true, force: true });
  });
});
