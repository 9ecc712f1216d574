// The skills that ship with Hermes, through the code users run: every one is listed by `skills_list`
// and loads with `skill_view` (with its linked files), its frontmatter is what our loader and Python
// Hermes read, its related skills and required toolsets exist, and the guard passes it. The
// `hermes …` command lines inside the skills are checked against the CLI by test/docs/docs.test.ts.
// And the home stays the user's: listing and using bundled skills copies nothing into it and writes
// no manifest entry (Python Hermes's sync would drop such an entry and then list the copy as the
// user's own skill).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import type { AgentRequest, AgentTool, Answered } from '../../src/agent/types.ts';
import { defaultConfig } from '../../src/state/defaults.ts';
import { packageRoot } from '../../src/state/paths.ts';
import { bundledSkills, bundledSkillsRoot } from '../../src/state/skills-bundled.ts';
import { scanSkillDir } from '../../src/state/skills-hub.ts';
import { buildSkillsIndex, discoverSkills, parseFrontmatter } from '../../src/state/skills.ts';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import type { ToolSession } from '../../src/tools/types.ts';
import { Slots } from '../../src/state/slots.ts';
import { hermes } from '../helpers/cli.ts';

const ROOT = join(packageRoot(), 'skills');

function tools(home: string) {
  const services: ToolSession = { home, config: defaultConfig(), env: {}, cwd: home, platform: 'cli', sessionId: 's', taskId: 's', slots: new Slots(), yolo: false };
  const reg = builtinRegistry();
  const byName = new Map(reg.build(['skills'], services).map((t) => [t.name, t]));
  const call = async (name: string, args: Record<string, unknown>) => {
    const out = await (byName.get(name) as AgentTool).execute(args, {
      callId: 'c',
      signal: new AbortController().signal,
      // Nobody answers (a skill asking for a key reports setup_needed instead).
      ask: async <R extends AgentRequest>() => ({ answer: null, source: 'no_responder' }) as Answered<R>,
      progress: () => {},
    });
    return { isError: !!out.isError, json: JSON.parse(out.content) as Record<string, unknown> };
  };
  return { call, toolsets: reg.toolsets() };
}

/** Every folder below skills/ with a SKILL.md, walked independently of the loader. */
function skillFolders(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const d = join(dir, e.name);
    if (existsSync(join(d, 'SKILL.md'))) out.push(d);
    else skillFolders(d, out);
  }
  return out;
}

const folders = skillFolders(ROOT);

test('at least 30 bundled skills, covering the categories Hermes bundles', () => {
  assert.ok(folders.length >= 30, `${folders.length} skills`);
  const categories = new Set(folders.map((d) => relative(ROOT, d).split(sep)[0]));
  for (const c of ['hermes', 'github', 'software-development', 'research', 'documents', 'note-taking', 'smart-home', 'mlops', 'devops', 'data', 'writing', 'productivity'])
    assert.ok(categories.has(c), `no skill in ${c}`);
  assert.equal(bundledSkills(bundledSkillsRoot()).length, folders.length, 'the loader finds every folder');
});

test('every bundled skill has valid frontmatter in the shape our loader and Python Hermes read', () => {
  const names = new Set<string>();
  for (const d of folders) {
    const rel = relative(ROOT, d);
    const text = readFileSync(join(d, 'SKILL.md'), 'utf8');
    assert.ok(text.startsWith('---\n'), `${rel}: frontmatter first`);
    const { frontmatter: fm, body } = parseFrontmatter(text);
    const folder = d.split(sep).pop()!;
    assert.equal(fm.name, folder, `${rel}: name is the folder name`);
    assert.match(String(fm.name), /^[a-z0-9][a-z0-9-]{1,63}$/, rel);
    assert.ok(!names.has(String(fm.name)), `${rel}: duplicate name`);
    names.add(String(fm.name));
    assert.equal(typeof fm.description, 'string', rel);
    const desc = String(fm.description);
    assert.ok(desc.length >= 40 && desc.length <= 300 && !desc.includes('\n'), `${rel}: one-line description of when to use it (${desc.length} chars)`);
    assert.match(String(fm.version), /^\d+\.\d+\.\d+$/, `${rel}: version`);
    assert.equal(fm.license, 'MIT', rel);
    const h = (fm.metadata as { hermes?: Record<string, unknown> } | undefined)?.hermes;
    assert.ok(h && Array.isArray(h.tags) && h.tags.length >= 2 && h.tags.every((t) => typeof t === 'string'), `${rel}: metadata.hermes.tags`);
    if (fm.platforms !== undefined) assert.ok(Array.isArray(fm.platforms) && fm.platforms.every((p) => ['linux', 'macos', 'windows'].includes(String(p))), `${rel}: platforms`);
    assert.match(body, /^## When to use$/m, `${rel}: a "When to use" section`);
    assert.match(body, /^## Procedure$/m, `${rel}: a "Procedure" section`);
    const lines = text.split('\n').length;
    assert.ok(lines >= 35 && lines <= 160, `${rel}: ${lines} lines`);
  }
});

test('related skills exist and required toolsets are real toolsets', () => {
  const { toolsets } = tools(mkdtempSync(join(tmpdir(), 'hermes-bundled-')));
  const names = new Set(folders.map((d) => d.split(sep).pop()!));
  for (const d of folders) {
    const h = ((parseFrontmatter(readFileSync(join(d, 'SKILL.md'), 'utf8')).frontmatter.metadata as { hermes?: Record<string, unknown> }).hermes ?? {}) as Record<string, unknown>;
    for (const r of (h.related_skills as string[] | undefined) ?? []) assert.ok(names.has(r), `${relative(ROOT, d)}: related skill ${r} does not exist`);
    for (const t of (h.requires_toolsets as string[] | undefined) ?? []) assert.ok(toolsets.has(t), `${relative(ROOT, d)}: toolset ${t} does not exist`);
  }
});

test('skills_list lists every bundled skill and skill_view loads each one, files included', async () => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bundled-'));
  const { call } = tools(home);
  const list = await call('skills_list', {});
  const listed = list.json.skills as { name: string; description: string; category: string }[];
  const expected = folders
    .map((d) => parseFrontmatter(readFileSync(join(d, 'SKILL.md'), 'utf8')).frontmatter)
    .filter((fm) => !Array.isArray(fm.platforms) || fm.platforms.includes(process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'windows' : 'linux'));
  assert.deepEqual(listed.map((s) => s.name).sort(), expected.map((fm) => String(fm.name)).sort());
  for (const s of listed) {
    const dir = folders.find((d) => d.endsWith(`${sep}${s.name}`))!;
    assert.equal(s.category, relative(ROOT, dir).split(sep).slice(0, -1).join('/'), `${s.name}: category from its folder`);
    const v = await call('skill_view', { name: s.name });
    assert.equal(v.isError, false, `${s.name}: ${JSON.stringify(v.json)}`);
    assert.equal(v.json.content, readFileSync(join(dir, 'SKILL.md'), 'utf8'));
    assert.equal(v.json.path, dir, `${s.name} is read in place`);
    for (const f of v.json.linked_files as string[]) {
      const file = await call('skill_view', { name: s.name, file_path: f });
      assert.equal(file.isError, false, `${s.name}/${f}`);
      assert.equal(file.json.content, readFileSync(join(dir, f), 'utf8'));
    }
  }
  // Using them wrote nothing of theirs into the home.
  assert.ok(!existsSync(join(home, 'skills', '.bundled_manifest')));
  assert.deepEqual(existsSync(join(home, 'skills')) ? readdirSync(join(home, 'skills')).filter((f) => !f.startsWith('.')) : [], []);
});

test('every bundled skill passes the skills guard', () => {
  for (const d of folders) {
    const r = scanSkillDir(d);
    assert.equal(r.verdict, 'safe', `${relative(ROOT, d)}: ${r.findings.map((f) => `${f.id} in ${f.file}`).join(', ')}`);
  }
});

test('the CLI lists bundled skills from the package and leaves the home without copies or manifest', async () => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bundled-'));
  const r = await hermes(['skills', 'list', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { name: string; source: string; path: string }[];
  const bundled = rows.filter((x) => x.source === 'bundled');
  assert.ok(bundled.length >= 30);
  for (const b of bundled) assert.ok(b.path.startsWith(ROOT), `${b.name}: ${b.path}`);
  assert.ok(!existsSync(join(home, 'skills', '.bundled_manifest')), 'no manifest entry Python Hermes would drop');
  assert.deepEqual(existsSync(join(home, 'skills')) ? readdirSync(join(home, 'skills')).filter((f) => !f.startsWith('.')) : [], [], 'no copies');
});

test('the prompt index names bundled skills without descriptions and describes the user\'s own', () => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bundled-'));
  mkdirSync(join(home, 'skills', 'writing', 'release-notes'), { recursive: true });
  writeFileSync(join(home, 'skills', 'writing', 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Write release notes my way\n---\n# Notes\n');
  const index = buildSkillsIndex(discoverSkills(home))!;
  assert.match(index, /^writing:\n {2}- release-notes: Write release notes my way\n {2}- changelog-writing, commit-messages$/m);
  assert.match(index, /^data: csv-analysis, sqlite-queries$/m);
  assert.doesNotMatch(index, /Explore and analyse CSV/, 'bundled descriptions stay out of the prompt');
});
