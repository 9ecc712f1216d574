// `hermes curator` and /curator on a seeded home: Hermes's .usage.json and .curator_state, agent-created
// skills going stale and then to skills/.archive by inactivity, pins, restore, prune; bundled and
// hub-installed skills never touched; skill_view, skill_manage and /<skill> bump the counters.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();

function skill(home: string, rel: string, name: string): void {
  mkdirSync(join(home, 'skills', rel), { recursive: true });
  writeFileSync(join(home, 'skills', rel, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name} things\n---\n# ${name}\nDo it.\n`);
}

/** old-one idle 120 days, drifting idle 45, fresh used today, pinned-old idle 200 (pinned); a bundled and a hub skill. */
function seeded(home = tempHome()): string {
  skill(home, 'devops/old-one', 'old-one');
  skill(home, 'drifting', 'drifting');
  skill(home, 'fresh', 'fresh');
  skill(home, 'pinned-old', 'pinned-old');
  skill(home, 'bundled-x', 'bundled-x');
  skill(home, 'hub-y', 'hub-y');
  writeFileSync(join(home, 'skills', '.bundled_manifest'), 'bundled-x:0123456789abcdef0123456789abcdef\n');
  mkdirSync(join(home, 'skills', '.hub'), { recursive: true });
  writeFileSync(join(home, 'skills', '.hub', 'lock.json'), JSON.stringify({ version: 1, installed: { 'hub-y': { source: 'git', identifier: 'x', install_path: 'hub-y' } } }));
  const rec = (o: Record<string, unknown>) => ({ use_count: 1, view_count: 0, last_used_at: null, last_viewed_at: null, patch_count: 0, last_patched_at: null, created_at: daysAgo(300), state: 'active', pinned: false, archived_at: null, created_by: 'agent', ...o });
  writeFileSync(
    join(home, 'skills', '.usage.json'),
    JSON.stringify({
      'old-one': rec({ last_used_at: daysAgo(120), negative_claims: [] }),
      drifting: rec({ last_viewed_at: daysAgo(45) }),
      fresh: rec({ last_used_at: daysAgo(0) }),
      'pinned-old': rec({ last_used_at: daysAgo(200), pinned: true }),
    }),
  );
  return home;
}

const usage = (home: string) => JSON.parse(readFileSync(join(home, 'skills', '.usage.json'), 'utf8'));

describe('hermes curator', () => {
  it('status, dry run, run, restore: only unpinned agent-created skills move; Hermes’s files stay in shape', async () => {
    const home = seeded();
    const st = await hermes(['curator', 'status'], { home });
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /^curator: ENABLED/m);
    assert.match(st.stdout, /stale after: {4}30d unused/);
    assert.match(st.stdout, /curator-managed skills: 4 total/);
    assert.match(st.stdout, /pinned \(1\): pinned-old/);
    assert.doesNotMatch(st.stdout, /bundled-x|hub-y/);

    const dry = await hermes(['curator', 'run', '--dry-run'], { home });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /old-one: active → archived \(idle 120d\)/);
    assert.match(dry.stdout, /drifting: active → stale \(idle 45d\)/);
    assert.ok(existsSync(join(home, 'skills', 'devops', 'old-one', 'SKILL.md')), 'dry run moves nothing');
    const preview = JSON.parse(readFileSync(join(home, 'skills', '.curator_state'), 'utf8'));
    assert.equal(preview.run_count ?? 0, 0, 'a dry run is not counted as a run');
    assert.equal(preview.last_run_at ?? null, null, 'nor does it push the next scheduled run out');
    assert.match(preview.last_run_summary, /^dry-run auto: dry run: would mark 1 stale/);

    const run = await hermes(['curator', 'run'], { home });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /marked 1 stale, archived 1, reactivated 0 of 4 agent-created skill\(s\)/);
    assert.ok(existsSync(join(home, 'skills', '.archive', 'old-one', 'SKILL.md')), 'archived, not deleted');
    assert.ok(!existsSync(join(home, 'skills', 'devops', 'old-one')));
    for (const kept of ['pinned-old', 'bundled-x', 'hub-y', 'fresh', 'drifting']) assert.ok(existsSync(join(home, 'skills', kept, 'SKILL.md')), `${kept} stays`);
    const u = usage(home);
    assert.equal(u['old-one'].state, 'archived');
    assert.ok(u['old-one'].archived_at);
    assert.deepEqual(u['old-one'].negative_claims, [], 'fields of newer Hermes versions are kept');
    assert.equal(u.drifting.state, 'stale');
    assert.equal(u['pinned-old'].state, 'active');
    assert.ok(!('bundled-x' in u) && !('hub-y' in u), 'upstream skills are never recorded');
    const state = JSON.parse(readFileSync(join(home, 'skills', '.curator_state'), 'utf8'));
    assert.equal(state.run_count, 1);
    assert.equal(state.paused, false);
    assert.ok(Date.parse(state.last_run_at) > Date.now() - 600_000);
    assert.match(state.last_run_summary, /old-one → \.archive/);

    const listed = await hermes(['curator', 'list-archived'], { home });
    assert.equal(listed.stdout, 'old-one\n');
    const back = await hermes(['curator', 'restore', 'old-one'], { home });
    assert.equal(back.code, 0, back.stderr);
    assert.ok(existsSync(join(home, 'skills', 'old-one', 'SKILL.md')), 'restored flat under skills/');
    assert.equal(usage(home)['old-one'].state, 'active');
    const again = await hermes(['curator', 'restore', 'old-one'], { home });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^hermes: skill 'old-one' not found in the archive/);
  });

  it('pin/unpin, pause/resume, archive refuses pinned, upstream skills refused, prune asks', async () => {
    const home = seeded();
    const pin = await hermes(['curator', 'pin', 'drifting'], { home });
    assert.equal(pin.code, 0, pin.stderr);
    assert.equal(usage(home).drifting.pinned, true);
    const arch = await hermes(['curator', 'archive', 'drifting'], { home });
    assert.equal(arch.code, 1);
    assert.match(arch.stderr, /'drifting' is pinned; unpin it first with `hermes curator unpin drifting`/);
    assert.equal((await hermes(['curator', 'unpin', 'drifting'], { home })).code, 0);
    assert.equal(usage(home).drifting.pinned, false);

    const up = await hermes(['curator', 'pin', 'bundled-x'], { home });
    assert.equal(up.code, 1);
    assert.match(up.stderr, /'bundled-x' is bundled or hub-installed/);
    const none = await hermes(['curator', 'pin', 'nope'], { home });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No skill named 'nope'/);

    assert.match((await hermes(['curator', 'pause'], { home })).stdout, /curator: paused/);
    assert.match((await hermes(['curator', 'status'], { home })).stdout, /^curator: PAUSED/m);
    assert.equal((await hermes(['curator', 'resume'], { home })).code, 0);
    assert.equal(JSON.parse(readFileSync(join(home, 'skills', '.curator_state'), 'utf8')).paused, false);

    const preview = await hermes(['curator', 'prune', '--days', '40', '--dry-run'], { home });
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /2 skill\(s\) idle 40d or more:\n {2}old-one +idle 120d\n {2}drifting +idle 45d/);
    const refused = await hermes(['curator', 'prune', '--days', '40'], { home });
    assert.equal(refused.code, 2, 'no terminal to ask: refuses');
    assert.match(refused.stderr, /add --yes to confirm \(nothing was changed\)/);
    assert.ok(existsSync(join(home, 'skills', 'drifting')));
    const pruned = await hermes(['curator', 'prune', '--days', '40', '--yes'], { home });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /archived 2\/2/);
    const bad = await hermes(['curator', 'prune', '--days', '0'], { home });
    assert.equal(bad.code, 2);

    const off = seeded();
    writeFileSync(join(off, 'config.yaml'), 'curator:\n  enabled: false\n');
    const disabled = await hermes(['curator', 'run'], { home: off });
    assert.equal(disabled.code, 1);
    assert.match(disabled.stderr, /curator is disabled/);
  });

  it('skill_view and skill_manage bump .usage.json for agent-created skills only', async () => {
    const home = seeded(homeWithModel(fake.openaiBaseUrl));
    fake.enqueue(
      { text: '', toolCalls: [{ name: 'skill_view', arguments: { name: 'fresh' } }, { name: 'skill_view', arguments: { name: 'bundled-x' } }] },
      { text: '', toolCalls: [{ name: 'skill_manage', arguments: { action: 'patch', name: 'drifting', old_string: 'Do it.', new_string: 'Do it well.' } }] },
      { text: 'Done.' },
    );
    const r = await hermes(['-z', 'look at skills', '--yolo'], { home });
    assert.equal(r.code, 0, r.stderr);
    const u = usage(home);
    assert.equal(u.fresh.view_count, 1);
    assert.ok(Date.parse(u.fresh.last_viewed_at) > Date.now() - 600_000);
    assert.equal(u.drifting.patch_count, 1);
    assert.ok(!('bundled-x' in u));
  });
});

describe('/curator', () => {
  it('status, run, pin and restore from a conversation; /<skill> counts as a use', async () => {
    const home = seeded();
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
    const env = { ...process.env, HERMES_HOME: home, HOME: home };
    const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: true, seedBundledSkills: false, backgroundTasks: false });
    const registry = createCommandRegistry({ home });
    const out = async (line: string) => (await runCommand(registry, line, { session, surface: 'gateway', hooks: {} }))?.output ?? '';
    assert.match(await out('/curator'), /curator-managed skills: 4 total/);
    assert.match(await out('/curator pin drifting'), /^Pinned drifting\./);
    assert.match(await out('/curator run'), /^Curator run: auto: marked 0 stale, archived 1.*; llm: skipped \(consolidation off\)/);
    assert.match(await out('/curator list-archived'), /old-one/);
    assert.match(await out('/curator restore old-one'), /^Restored old-one/);
    assert.match(await out('/curator frob'), /^Usage: \/curator/);
    const sent = await runCommand(registry, '/fresh tidy up', { session, surface: 'cli', hooks: {} });
    assert.match(String(sent?.send), /tidy up/);
    assert.equal(usage(home).fresh.use_count, 2);
    await session.close();
  });
});

describe('curator consolidation pass', () => {
  const aux = () => `auxiliary:\n  curator:\n    provider: custom\n    model: curator-model\n    base_url: ${fake.openaiBaseUrl}\n    api_key: k\n`;
  const umbrella = '---\nname: docker-troubleshooting\ndescription: Diagnosing Docker build and runtime failures\n---\n# Docker troubleshooting\n## Layer cache misses (was docker-fix-a)\nPin the base image digest.\n';
  const finalText = 'Merged the Docker notes into one umbrella; retired an obsolete one.\n\n## Structured summary (required)\n```yaml\nconsolidations:\n  - from: docker-fix-a\n    into: docker-troubleshooting\n    reason: same class of Docker build failures\nprunings:\n  - name: docker-fix-b\n    reason: the workaround is obsolete\n```\n';

  function home(): string {
    const h = seeded(homeWithModel(fake.openaiBaseUrl, aux()));
    skill(h, 'docker-fix-a', 'docker-fix-a');
    skill(h, 'docker-fix-b', 'docker-fix-b');
    // Written by the background review: curator-managed.
    writeFileSync(join(h, 'skills', '.usage.json'), JSON.stringify({ ...usage(h), 'docker-fix-a': { created_by: 'agent' }, 'docker-fix-b': { created_by: 'agent' } }));
    return h;
  }

  it('--consolidate runs the reviewer on the curator model with the skills tools; merges are archived, ledgered, reported and undoable', async () => {
    const h = home();
    const n = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'skills_list', arguments: {} }] },
      {
        toolCalls: [
          { name: 'skill_manage', arguments: { action: 'create', name: 'docker-troubleshooting', content: umbrella } },
          { name: 'skill_manage', arguments: { action: 'delete', name: 'docker-fix-a', absorbed_into: 'docker-troubleshooting' } },
          { name: 'skill_manage', arguments: { action: 'delete', name: 'docker-fix-b', absorbed_into: '' } },
          { name: 'skill_manage', arguments: { action: 'delete', name: 'bundled-x', absorbed_into: '' } },
          { name: 'skill_manage', arguments: { action: 'patch', name: 'pinned-old', old_string: 'Do it.', new_string: 'Do it now.' } },
        ],
      },
      { text: finalText },
    );
    const r = await hermes(['curator', 'run', '--consolidate'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /snapshot created \(\d{4}-\d{2}-\d{2}T/);
    assert.match(r.stdout, /llm: .*\(1 consolidated, 1 pruned\)/);
    assert.match(r.stdout, /docker-fix-a → docker-troubleshooting/);
    const reqs = fake.requests.slice(n);
    assert.equal(reqs[0].body.model, 'curator-model');
    assert.deepEqual((reqs[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name).sort(), ['skill_manage', 'skill_view', 'skills_list']);
    assert.match(JSON.stringify(reqs[0].body.messages), /docker-fix-a {2}state=active {2}pinned=no {2}cron=no/);
    // The umbrella exists, the merged and pruned skills are archived (never erased), upstream and pinned untouched.
    assert.ok(existsSync(join(h, 'skills', 'docker-troubleshooting', 'SKILL.md')));
    assert.ok(!existsSync(join(h, 'skills', 'docker-fix-a')));
    assert.ok(readFileSync(join(h, 'skills', 'bundled-x', 'SKILL.md'), 'utf8').includes('Do it.'));
    assert.ok(!readFileSync(join(h, 'skills', 'pinned-old', 'SKILL.md'), 'utf8').includes('Do it now.'));
    assert.match(JSON.stringify(reqs.at(-1)!.body.messages), /bundled-x is bundled or hub-installed; the curator never changes it/);
    // Report and state.
    const state = JSON.parse(readFileSync(join(h, 'skills', '.curator_state'), 'utf8'));
    const report = readFileSync(join(state.last_report_path, 'REPORT.md'), 'utf8');
    assert.match(report, /`docker-fix-a` → `docker-troubleshooting` — same class of Docker build failures/);
    assert.match(report, /## Pruned .*\n\n- `docker-fix-b` — the workaround is obsolete/);
    const run = JSON.parse(readFileSync(join(state.last_report_path, 'run.json'), 'utf8'));
    assert.deepEqual(run.added, ['docker-troubleshooting']);
    assert.equal(run.consolidated[0].source, 'absorbed_into (declared at delete)');
    // The ledger has the curator's changes; rolling back one entry brings that skill back.
    const led = await hermes(['curator', 'ledger'], { home: h });
    assert.match(led.stdout, /curator {2}delete {7}docker-fix-a/);
    assert.match(led.stdout, /curator {2}create {7}docker-troubleshooting/);
    const id = /^ {2}([0-9a-f]{12}) .*delete {7}docker-fix-a/m.exec(led.stdout)![1];
    const one = await hermes(['curator', 'rollback', id, '--yes'], { home: h });
    assert.equal(one.code, 0, one.stderr);
    assert.ok(existsSync(join(h, 'skills', 'docker-fix-a', 'SKILL.md')), 'the one deletion is undone');
    // The snapshot taken before the run undoes it all.
    const list = await hermes(['curator', 'rollback', '--list'], { home: h });
    assert.match(list.stdout, /pre-curator-run/);
    const all = await hermes(['curator', 'rollback', '--yes'], { home: h });
    assert.equal(all.code, 0, all.stderr);
    assert.ok(existsSync(join(h, 'skills', 'docker-fix-b', 'SKILL.md')));
    assert.ok(!existsSync(join(h, 'skills', 'docker-troubleshooting')));
    assert.match((await hermes(['curator', 'rollback', '--list'], { home: h })).stdout, /pre-rollback to /);
  });

  it('a dry run gives the reviewer read-only tools and changes nothing; without consolidation no model is asked', async () => {
    const h = home();
    let n = fake.requests.length;
    await hermes(['curator', 'run'], { home: h });
    assert.equal(fake.requests.length, n, 'consolidation is off by default');
    fake.enqueue({ text: finalText });
    n = fake.requests.length;
    const r = await hermes(['curator', 'run', '--dry-run', '--consolidate'], { home: h });
    assert.equal(r.code, 0, r.stderr);
    const req = fake.requests[n];
    assert.deepEqual((req.body.tools as { function: { name: string } }[]).map((t) => t.function.name).sort(), ['skill_view', 'skills_list']);
    assert.match(JSON.stringify(req.body.messages), /DRY RUN/);
    assert.ok(existsSync(join(h, 'skills', 'docker-fix-a', 'SKILL.md')));
    assert.doesNotMatch((await hermes(['curator', 'rollback', '--list'], { home: h })).stdout, /dry/);
  });
});

describe('curator min_idle_hours', () => {
  it('idleSeconds measures the time since the last message in state.db (what automatic runs wait on)', async () => {
    const { idleSeconds } = await import('../../src/session/curator-review.ts');
    const { SessionDB } = await import('../../src/state/db.ts');
    const h = tempHome();
    assert.equal(idleSeconds(h), null, 'no state.db: no measurement, so no gate');
    const db = SessionDB.open(join(h, 'state.db'));
    db.createSession({ id: '20260101_000000_abcdef', source: 'cli', model: 'm' });
    db.appendMessage('20260101_000000_abcdef', { role: 'user', content: 'hi' });
    db.close();
    const idle = idleSeconds(h)!;
    assert.ok(idle >= 0 && idle < 3600, `just talked: ${idle}s`);
    assert.ok(idleSeconds(h, Date.now() + 3 * 3600_000)! >= 3 * 3600 - 5);
  });
});
