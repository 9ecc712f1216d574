// auth.json read and written as Python Hermes does: format, 0600, atomic replacement, and the same
// flock(2) on auth.lock, so concurrent writers (ours or Python's) never lose an update.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { addPoolEntry, poolEntries } from '../../src/auth/pool.ts';
import { AuthStore, pythonUtcNow } from '../../src/auth/store.ts';
import { tempHome } from '../helpers/cli.ts';
import { copyPythonHome } from '../helpers/hermes-home.ts';

const WRITER = fileURLToPath(new URL('./auth-writer.ts', import.meta.url));

test('timestamps are written the way Python’s isoformat() writes them', () => {
  assert.equal(pythonUtcNow(Date.UTC(2026, 10, 25, 5, 31, 47, 454)), '2026-11-25T05:31:47.454000+00:00');
  assert.equal(pythonUtcNow(Date.UTC(2026, 10, 25, 5, 31, 47, 0)), '2026-11-25T05:31:47+00:00');
});

test('an update that changes nothing leaves the Python-written file byte for byte', async () => {
  const h = copyPythonHome();
  const before = readFileSync(join(h, 'auth.json'), 'utf8');
  const store = new AuthStore(h);
  assert.equal(await store.update((d) => poolEntries(d, 'openrouter').length), 2);
  assert.equal(readFileSync(join(h, 'auth.json'), 'utf8'), before);
  await store.update((d) => addPoolEntry(d, 'nous-like', { label: 'x', auth_type: 'api_key', source: 'manual', access_token: 'k' }));
  const after = readFileSync(join(h, 'auth.json'), 'utf8');
  assert.ok(after.endsWith('}\n'));
  assert.equal(statSync(join(h, 'auth.json')).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(after).credential_pool.openrouter, JSON.parse(before).credential_pool.openrouter);
});

test('several processes adding credentials at once lose nothing', async () => {
  const h = tempHome();
  const run = (name: string) =>
    new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [WRITER, h, name, '8'], { stdio: 'ignore' });
      c.on('close', resolve);
    });
  assert.deepEqual(await Promise.all(['p1', 'p2', 'p3'].map(run)), [0, 0, 0]);
  const entries = poolEntries(new AuthStore(h).read(), 'openrouter');
  assert.equal(entries.length, 24);
  assert.deepEqual(entries.map((e) => e.priority), [...Array(24).keys()]);
  assert.equal(new Set(entries.map((e) => e.id)).size, 24);
});

test('a writer holding auth.lock (as Python Hermes does with flock) is waited for, not overwritten', async (t) => {
  const h = copyPythonHome();
  const file = join(h, 'auth.json');
  const withX = JSON.parse(readFileSync(file, 'utf8'));
  withX.credential_pool.openrouter.push({ id: 'pyhold', label: 'written-under-python-lock', auth_type: 'api_key', priority: 2, source: 'manual', access_token: 'sk-x' });
  writeFileSync(join(h, 'next.json'), JSON.stringify(withX, null, 2));
  const holder = spawn('flock', [join(h, 'auth.lock'), 'sh', '-c', `echo held; sleep 0.5; cp "${join(h, 'next.json')}" "${file}"`], { stdio: ['ignore', 'pipe', 'ignore'] });
  const closed = new Promise((r) => holder.on('close', r));
  const started = await new Promise<boolean>((resolve) => {
    holder.on('error', () => resolve(false));
    holder.stdout.once('data', () => resolve(true));
  });
  if (!started) return t.skip('util-linux flock is not installed');
  await new AuthStore(h).update((d) => addPoolEntry(d, 'openrouter', { label: 'ours', auth_type: 'api_key', source: 'manual', access_token: 'sk-ours' }));
  await closed;
  const labels = poolEntries(new AuthStore(h).read(), 'openrouter').map((e) => e.label);
  assert.deepEqual(labels, ['primary-or', 'backup-or', 'written-under-python-lock', 'ours']);
});
