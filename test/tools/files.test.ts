import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fuzzyReplace } from '../../src/tools/fuzzy-match.ts';
import patch from '../../src/tools/defs/patch.ts';
import readFile from '../../src/tools/defs/read-file.ts';
import searchFiles from '../../src/tools/defs/search-files.ts';
import { parseV4A } from '../../src/tools/v4a.ts';
import writeFile from '../../src/tools/defs/write-file.ts';
import { call, makeServices } from './helpers.ts';

describe('read_file', () => {
  it('numbers lines, pages with offset/limit and hints at the rest', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'a.txt'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const r = await call(readFile, { path: 'a.txt', offset: 10, limit: 3 }, s);
    assert.equal(r.json.content, '10|line 10\n11|line 11\n12|line 12');
    assert.equal(r.json.total_lines, 30);
    assert.match(r.json.hint, /offset=13/);
  });

  it('refuses binaries and images (Latin-1 is text), and suggests similar names for missing files', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'x.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
    writeFileSync(join(s.cwd, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b])); // "café ok" in Latin-1
    writeFileSync(join(s.cwd, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(join(s.cwd, 'config.yaml'), 'a: 1\n');
    const bin = await call(readFile, { path: 'x.bin' }, s);
    assert.equal(bin.json.is_binary, true);
    assert.match(bin.json.error, /ELF executable/);
    const latin = await call(readFile, { path: 'latin1.txt' }, s);
    assert.equal(latin.json.content, '1|café ok', 'Latin-1 is text');
    assert.equal(latin.json.encoding, 'latin-1');
    assert.equal((await call(readFile, { path: 'pic.png' }, s)).json.is_image, true);
    const missing = await call(readFile, { path: 'config.yml' }, s);
    assert.match(missing.json.error, /File not found/);
    assert.ok(missing.json.similar_files.some((f: string) => f.endsWith('config.yaml')));
  });

  it('caps a read at 100,000 characters and long lines at 2,000', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'wide.txt'), ('x'.repeat(1500) + '\n').repeat(200));
    const r = await call(readFile, { path: 'wide.txt', limit: 2000 }, s);
    assert.match(r.json.error, /more than the 100,000/);
    writeFileSync(join(s.cwd, 'long.txt'), 'y'.repeat(5000) + '\n');
    const l = await call(readFile, { path: 'long.txt' }, s);
    assert.match(l.json.content, /\[line truncated\]$/);
  });
});

describe('write_file', () => {
  it('creates parents, reports bytes and a diff for people', async () => {
    const s = makeServices();
    const r = await call(writeFile, { path: 'deep/er/new.txt', content: 'hello\n' }, s);
    assert.equal(r.json.bytes_written, 6);
    assert.equal(r.json.dirs_created, true);
    assert.equal(readFileSync(join(s.cwd, 'deep/er/new.txt'), 'utf8'), 'hello\n');
    assert.match((r.display as { diff: string }).diff, /\+hello/);
  });

  it('refuses the denylist and HERMES_WRITE_SAFE_ROOT escapes', async () => {
    const s = makeServices();
    s.env.HOME = s.cwd;
    for (const p of ['.env', '.ssh/authorized_keys', join(s.home, 'config.yaml'), '/etc/hermes-test']) {
      const r = await call(writeFile, { path: p, content: 'x' }, s);
      assert.equal(r.isError, true, p);
    }
    assert.ok(!existsSync(join(s.cwd, '.env')));
    const root = join(s.cwd, 'safe');
    mkdirSync(root);
    s.env.HERMES_WRITE_SAFE_ROOT = root;
    assert.equal((await call(writeFile, { path: 'safe/ok.txt', content: 'x' }, s)).isError, false);
    assert.match((await call(writeFile, { path: 'outside.txt', content: 'x' }, s)).json.error, /HERMES_WRITE_SAFE_ROOT/);
  });

  it('refuses to overwrite a file changed since it was read (file-state guard)', async () => {
    const s = makeServices();
    const f = join(s.cwd, 'shared.txt');
    writeFileSync(f, 'v1\n');
    await call(readFile, { path: 'shared.txt' }, s);
    writeFileSync(f, 'v2 from the user\n');
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const r = await call(writeFile, { path: 'shared.txt', content: 'agent\n' }, s);
    assert.match(r.json.error, /modified since you last read it/);
    assert.equal(readFileSync(f, 'utf8'), 'v2 from the user\n');
    await call(readFile, { path: 'shared.txt' }, s);
    assert.equal((await call(writeFile, { path: 'shared.txt', content: 'agent\n' }, s)).isError, false);
    // Its own writes do not trip the guard.
    assert.equal((await call(writeFile, { path: 'shared.txt', content: 'agent 2\n' }, s)).isError, false);
    s.env.HERMES_DISABLE_FILE_STATE_GUARD = '1';
    writeFileSync(f, 'changed again\n');
    utimesSync(f, new Date(), new Date(Date.now() + 10_000));
    assert.equal((await call(writeFile, { path: 'shared.txt', content: 'forced\n' }, s)).isError, false);
  });

  it('keeps CRLF line endings of an existing file', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'w.txt'), 'a\r\nb\r\n');
    await call(writeFile, { path: 'w.txt', content: 'a\nc\n' }, s);
    assert.equal(readFileSync(join(s.cwd, 'w.txt'), 'utf8'), 'a\r\nc\r\n');
  });
});

describe('fuzzy matching', () => {
  const file = 'def f():\n    x = 1\n    if x:\n        return  x\n    return 0\n';
  it('exact', () => {
    const r = fuzzyReplace(file, 'x = 1', 'x = 2', false);
    assert.equal(r.strategy, 'exact');
    assert.match(r.content!, /x = 2/);
  });
  it('line-trimmed (model lost the indentation) re-indents the replacement', () => {
    const r = fuzzyReplace(file, 'if x:\n    return  x', 'if x > 0:\n    return x * 2', false);
    assert.equal(r.strategy, 'line_trimmed');
    assert.match(r.content!, /\n {4}if x > 0:\n {8}return x \* 2\n/);
  });
  it('whitespace-normalized', () => {
    const r = fuzzyReplace(file, '        return x', '        return -x', false);
    assert.equal(r.strategy, 'whitespace_normalized');
    assert.match(r.content!, /return -x/);
  });
  it('indentation-flexible keeps trailing whitespace significant but ignores indentation', () => {
    const src = 'a:\n\tkey: 1  \n\tother: 2\n';
    const r = fuzzyReplace(src, '  key: 1  \n  other: 2', '  key: 10  \n  other: 20', false);
    assert.ok(['line_trimmed', 'indentation_flexible'].includes(r.strategy!));
    assert.equal(r.content, 'a:\n\tkey: 10  \n\tother: 20\n');
  });
  it('escape-normalized and unicode-normalized', () => {
    assert.equal(fuzzyReplace('a\nb\n', 'a\\nb', 'c', false).strategy, 'escape_normalized');
    const u = fuzzyReplace('say “hello” — now\n', 'say "hello" - now', 'say hi', false);
    assert.equal(u.strategy, 'unicode_normalized');
    assert.equal(u.content, 'say hi\n');
  });
  it('block anchor for a slightly wrong middle', () => {
    const src = 'start()\n  alpha beta gamma\n  delta epsilon\nend()\n';
    const r = fuzzyReplace(src, 'start()\n  alpha beta gamma!\n  delta epsilom\nend()', 'replaced()', false);
    assert.equal(r.strategy, 'block_anchor');
    assert.equal(r.content, 'replaced()\n');
  });
  it('guards: empty, identical, ambiguous, already applied', () => {
    assert.match(fuzzyReplace(file, '  ', 'x', false).error!, /empty/);
    assert.match(fuzzyReplace(file, 'x', 'x', false).error!, /identical/);
    const amb = fuzzyReplace('a = 1\nb = 1\na = 1\n', 'a = 1', 'a = 2', false);
    assert.match(amb.error!, /matches 2 places.*L1: a = 1 \| L3: a = 1/);
    assert.equal(fuzzyReplace('a = 1\nb = 1\na = 1\n', 'a = 1', 'a = 2', true).count, 2);
    assert.equal(fuzzyReplace('value = 2\n', 'value = 1', 'value = 2', false).alreadyApplied, true);
  });
});

describe('patch tool', () => {
  it('replace mode edits a file and returns a unified diff', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'app.py'), 'def main():\n    print("hi")\n');
    const r = await call(patch, { path: 'app.py', old_string: 'print("hi")', new_string: 'print("hello")' }, s);
    assert.equal(r.json.success, true);
    assert.match(r.json.diff, /^--- a\/.*app\.py\n\+\+\+ b\/.*\n@@ -1,2 \+1,2 @@\n def main\(\):\n-    print\("hi"\)\n\+    print\("hello"\)/m);
    assert.equal(readFileSync(join(s.cwd, 'app.py'), 'utf8'), 'def main():\n    print("hello")\n');
  });

  it('replace mode reports not-found and ambiguity without writing', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'b.txt'), 'x\nx\n');
    assert.match((await call(patch, { path: 'b.txt', old_string: 'nope', new_string: 'y' }, s)).json.error, /not found/);
    assert.match((await call(patch, { path: 'b.txt', old_string: 'x', new_string: 'y' }, s)).json.error, /matches 2 places/);
    assert.equal(readFileSync(join(s.cwd, 'b.txt'), 'utf8'), 'x\nx\n');
    assert.match((await call(patch, { path: 'missing.txt', old_string: 'a', new_string: 'b' }, s)).json.error, /write_file/);
  });

  it('V4A patch mode: update with anchor, add, delete, move — all or nothing', async () => {
    const s = makeServices();
    writeFileSync(join(s.cwd, 'one.py'), 'import os\n\ndef a():\n    return 1\n\ndef b():\n    return 1\n');
    writeFileSync(join(s.cwd, 'old.txt'), 'bye\n');
    writeFileSync(join(s.cwd, 'mv.txt'), 'moving\n');
    const text = [
      '*** Begin Patch',
      '*** Update File: one.py',
      '@@ def b():',
      '-    return 1',
      '+    return 2',
      '*** Add File: pkg/new.py',
      '+x = 1',
      '+y = 2',
      '*** Delete File: old.txt',
      '*** Move File: mv.txt -> moved/mv.txt',
      '*** End Patch',
    ].join('\n');
    const r = await call(patch, { mode: 'patch', patch: text }, s);
    assert.equal(r.json.success, true, r.raw);
    assert.equal(readFileSync(join(s.cwd, 'one.py'), 'utf8'), 'import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n');
    assert.equal(readFileSync(join(s.cwd, 'pkg/new.py'), 'utf8'), 'x = 1\ny = 2\n');
    assert.ok(!existsSync(join(s.cwd, 'old.txt')));
    assert.equal(readFileSync(join(s.cwd, 'moved/mv.txt'), 'utf8'), 'moving\n');
    assert.deepEqual(r.json.files_created.map((p: string) => p.replace(s.cwd + '/', '')).sort(), ['moved/mv.txt', 'pkg/new.py']);
    assert.match(r.json.diff, /-    return 1\n\+    return 2/);

    const bad = ['*** Begin Patch', '*** Update File: one.py', '-not in the file', '+x', '*** Add File: another.txt', '+a', '*** End Patch'].join('\n');
    const rb = await call(patch, { mode: 'patch', patch: bad }, s);
    assert.equal(rb.isError, true);
    assert.match(rb.json.error, /hunk 1.*not found[\s\S]*Nothing was changed/);
    assert.ok(!existsSync(join(s.cwd, 'another.txt')), 'a failing patch writes nothing');
  });

  it('V4A parser errors are clear', () => {
    assert.throws(() => parseV4A('*** Update File: x\n'), /Begin Patch/);
    assert.throws(() => parseV4A('*** Begin Patch\n*** Update File: x\n+a\n'), /End Patch/);
    assert.throws(() => parseV4A('*** Begin Patch\nrandom\n*** End Patch'), /Unexpected line/);
  });

  it('a malformed patch is answered with the V4A format (the tool description only names it)', async () => {
    const s = makeServices();
    const r = await call(patch, { mode: 'patch', patch: 'diff --git a/x b/x\n+hello' }, s);
    assert.equal(r.isError, true);
    assert.match(r.json.error, /starts with "\*\*\* Begin Patch"\. Format: .*\*\*\* Update File: <path>.*"@@ <anchor line>".*\*\*\* Add File: <path>.*\*\*\* Delete File.*\*\*\* Move File: <from> -> <to>.*\*\*\* End Patch/);
  });

  it('patch respects the denylist', async () => {
    const s = makeServices();
    const r = await call(patch, { mode: 'patch', patch: '*** Begin Patch\n*** Add File: .env\n+SECRET=1\n*** End Patch' }, s);
    assert.match(r.json.error, /\.env files hold secrets/);
  });
});

describe('search_files', () => {
  const s = makeServices();
  mkdirSync(join(s.cwd, 'src/sub'), { recursive: true });
  mkdirSync(join(s.cwd, '.git'), { recursive: true });
  writeFileSync(join(s.cwd, 'src/a.ts'), 'const alpha = 1;\nfunction beta() {}\n// alpha again\n');
  writeFileSync(join(s.cwd, 'src/sub/b.ts'), 'export const alpha = 2;\n');
  writeFileSync(join(s.cwd, 'src/c.py'), 'alpha = 3\n');
  writeFileSync(join(s.cwd, '.git/config'), 'alpha\n');
  writeFileSync(join(s.cwd, '.hidden.ts'), 'alpha hidden\n');

  it('finds content with line numbers, skipping .git', async () => {
    const r = await call(searchFiles, { pattern: 'alpha' }, s);
    assert.equal(r.json.total_count, 5);
    assert.ok(r.json.matches.some((m: any) => m.path === 'src/a.ts' && m.line === 3 && m.content === '// alpha again'));
    assert.ok(!r.json.matches.some((m: any) => m.path.includes('.git/')));
  });

  it('filters with file_glob, pages with offset/limit', async () => {
    const ts = await call(searchFiles, { pattern: 'alpha', file_glob: '*.ts' }, s);
    assert.equal(ts.json.total_count, 4);
    const p1 = await call(searchFiles, { pattern: 'alpha', file_glob: '*.ts', limit: 2 }, s);
    assert.equal(p1.json.matches.length, 2);
    assert.equal(p1.json.truncated, true);
    assert.match(p1.json.hint, /offset=2/);
    const p2 = await call(searchFiles, { pattern: 'alpha', file_glob: '*.ts', limit: 2, offset: 2 }, s);
    assert.equal(p2.json.matches.length, 2);
  });

  it('context lines, files_only and count modes', async () => {
    const c = await call(searchFiles, { pattern: 'beta', context: 1 }, s);
    assert.deepEqual(
      c.json.matches.map((m: any) => [m.line, !!m.context]),
      [
        [1, true],
        [2, false],
        [3, true],
      ],
    );
    const f = await call(searchFiles, { pattern: 'alpha', output_mode: 'files_only' }, s);
    assert.deepEqual(f.json.files, ['.hidden.ts', 'src/a.ts', 'src/c.py', 'src/sub/b.ts']);
    const n = await call(searchFiles, { pattern: 'alpha', output_mode: 'count' }, s);
    assert.equal(n.json.counts['src/a.ts'], 2);
    assert.equal(n.json.total_count, 5);
  });

  it('finds files by name glob', async () => {
    const r = await call(searchFiles, { pattern: '*.ts', target: 'files' }, s);
    assert.deepEqual(r.json.files, ['.hidden.ts', 'src/a.ts', 'src/sub/b.ts']);
    const none = await call(searchFiles, { pattern: '*.rs', target: 'files' }, s);
    assert.equal(none.json.total_count, 0);
  });

  it('reports bad regexes and missing paths clearly', async () => {
    const bad = await call(searchFiles, { pattern: 'foo(' }, s);
    assert.equal(bad.isError, true);
    assert.match(bad.json.error, /regex/);
    assert.match((await call(searchFiles, { pattern: 'x', path: 'nope' }, s)).json.error, /Path not found/);
  });
});

describe('redacted secrets are never written back', () => {
  it('read_file shows secrets masked; write_file refuses to write the mask over them; patch edits around them', async () => {
    const s = makeServices();
    const f = join(s.cwd, 'settings.py');
    writeFileSync(f, 'DEBUG = True\nAPI_KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"\nNAME = "app"\n');
    const r = await call(readFile, { path: 'settings.py' }, s);
    assert.doesNotMatch(r.raw, /abcdefghijklmnopqrstuvwxyz0123/);
    const masked = r.json.content.split('\n').map((l: string) => l.replace(/^\d+\|/, '')).join('\n') + '\n';
    const w = await call(writeFile, { path: 'settings.py', content: masked.replace('DEBUG = True', 'DEBUG = False') }, s);
    assert.match(w.json.error, /redacted form of a secret/);
    const p = await call(patch, { path: 'settings.py', old_string: 'DEBUG = True', new_string: 'DEBUG = False' }, s);
    assert.equal(p.json.success, true);
    assert.match(readFileSync(f, 'utf8'), /sk-proj-abcdefghijklmnopqrstuvwxyz0123/);
  });
});
