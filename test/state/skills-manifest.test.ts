// The bundled-skills manifest in Hermes's format: 32-hex MD5 per skill, computed as Python Hermes
// computes it (checked against the fixture Python Hermes 0.18.2 wrote, and against Python itself
// when python3 is installed). Bundled skills are read in place; the copies earlier versions of this
// project seeded are taken back, and what Python Hermes seeded is left alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/state/paths.ts';
import { bundledSkillHash, shortDirHash, readBundledManifest, retireSeededCopies, writeBundledManifest } from '../../src/state/skills-bundled.ts';
import { discoverSkills } from '../../src/state/skills.ts';

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

test('what earlier versions seeded is taken back: untouched copies removed, edited ones kept as the user\'s, deleted ones hidden', () => {
  const h = home();
  const bundled = home();
  for (const n of ['one', 'two', 'three']) writeSkill(bundled, `cat/${n}`, `name: ${n}\ndescription: ${n} v1`);
  writeSkill(bundled, 'py-too', 'name: py-too\ndescription: Ours');
  // What an earlier version of this project left: copies of one, two (then edited), not three (deleted)…
  mkdirSync(join(h, 'skills', 'cat'), { recursive: true });
  for (const n of ['one', 'two']) cpSync(join(bundled, 'cat', n), join(h, 'skills', 'cat', n), { recursive: true });
  writeFileSync(join(h, 'skills', 'cat', 'two', 'SKILL.md'), '---\nname: two\ndescription: Mine\n---\n');
  // …and a same-named skill Python Hermes seeded (its own bytes and hash), plus one only Python ships.
  writeSkill(join(h, 'skills'), 'py-too', 'name: py-too\ndescription: Python\'s');
  writeSkill(join(h, 'skills'), 'obsidian', 'name: obsidian\ndescription: Python\'s');
  const entries = new Map([
    ['one', bundledSkillHash(join(bundled, 'cat', 'one'))],
    ['two', bundledSkillHash(join(bundled, 'cat', 'two'))],
    ['three', bundledSkillHash(join(bundled, 'cat', 'three'))],
    ['py-too', bundledSkillHash(join(h, 'skills', 'py-too'))],
    ['obsidian', bundledSkillHash(join(h, 'skills', 'obsidian'))],
  ]);
  writeBundledManifest(h, entries);
  const r = retireSeededCopies(h, bundled);
  assert.deepEqual(r, { removed: ['one'], kept: ['two'], hidden: ['three'] });
  assert.ok(!existsSync(join(h, 'skills', 'cat', 'one')));
  assert.deepEqual([...readBundledManifest(h).keys()], ['obsidian', 'py-too'], 'only the entries Python Hermes wrote are left');
  assert.equal(readFileSync(join(h, 'skills', '.curator_suppressed'), 'utf8'), 'three\n');
  const list = discoverSkills(h, [], undefined, { bundledRoot: bundled });
  const by = (n: string) => list.find((s) => s.name === n);
  assert.deepEqual([by('one')!.source, by('one')!.packaged], ['bundled', true], 'read in place now');
  assert.deepEqual([by('two')!.source, by('two')!.description], ['user', 'Mine']);
  assert.equal(by('three'), undefined, 'a skill the user deleted stays away');
  assert.deepEqual([by('py-too')!.source, by('py-too')!.description, by('py-too')!.packaged], ['bundled', "Python's", undefined]);
  assert.equal(by('obsidian')!.source, 'bundled');
  // Stamped: a second run reads nothing and changes nothing.
  assert.deepEqual(retireSeededCopies(h, bundled), { removed: [], kept: [], hidden: [] });
});

test('an old 16-hex manifest entry proves the copy is ours', () => {
  const h = home();
  const bundled = home();
  writeSkill(bundled, 'one', 'name: one\ndescription: One v1');
  cpSync(join(bundled, 'one'), join(h, 'skills', 'one'), { recursive: true });
  writeFileSync(join(h, 'skills', '.bundled_manifest'), `one:${shortDirHash(join(bundled, 'one'))}\n`);
  writeFileSync(join(h, 'skills', '.bundled_sync'), 'abcdef0123456789\n');
  writeSkill(bundled, 'one', 'name: one\ndescription: One v2');
  assert.deepEqual(retireSeededCopies(h, bundled).removed, ['one']);
  assert.equal(readFileSync(join(h, 'skills', '.bundled_manifest'), 'utf8'), '');
});

test('a home Python Hermes 0.18.2 wrote keeps its manifest and copies; its skills list as bundled', () => {
  const h = home();
  cpSync(join(fixtureHome, 'skills'), join(h, 'skills'), { recursive: true });
  const before = readFileSync(join(h, 'skills', '.bundled_manifest'), 'utf8');
  writeFileSync(join(h, 'skills', '.bundled_manifest'), before + 'legacy-name\n');
  retireSeededCopies(h, join(packageRoot(), 'skills'));
  assert.equal(readFileSync(join(h, 'skills', '.bundled_manifest'), 'utf8'), before + 'legacy-name\n');
  const obsidian = discoverSkills(h).find((s) => s.name === 'obsidian')!;
  assert.equal(obsidian.source, 'bundled');
  assert.ok(obsidian.dir.startsWith(join(h, 'skills')));
});
