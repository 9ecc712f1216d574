// `hermes curator list-unmanaged | adopt | consolidate | purge`, and Hermes's provenance rule behind
// them: only skills marked `created_by: agent` (background review, curator, or adopted) are curated; a
// skill the person asked for in the conversation, or one older than the marker, is left alone.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
const usage = (home: string) => JSON.parse(readFileSync(join(home, 'skills', '.usage.json'), 'utf8'));

function skill(home: string, name: string): void {
  mkdirSync(join(home, 'skills', name), { recursive: true });
  writeFileSync(join(home, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name} things\n---\n# ${name}\nDo it.\n`);
}

/** managed-old (agent, idle 200d), legacy-old (no marker, idle 200d), mine-old (foreground: created_by null, idle 200d). */
function seeded(): string {
  const home = homeWithModel(fake.openaiBaseUrl);
  for (const n of ['managed-old', 'legacy-old', 'mine-old', 'umbrella']) skill(home, n);
  const rec = (o: Record<string, unknown>) => ({ use_count: 1, view_count: 0, last_used_at: daysAgo(200), last_viewed_at: null, patch_count: 0, last_patched_at: null, created_at: daysAgo(300), state: 'active', pinned: false, archived_at: null, ...o });
  writeFileSync(
    join(home, 'skills', '.usage.json'),
    JSON.stringify({ 'managed-old': rec({ created_by: 'agent' }), 'legacy-old': rec({}), 'mine-old': rec({ created_by: null }), umbrella: rec({ created_by: 'agent', last_used_at: daysAgo(0) }) }),
  );
  return home;
}

describe('curator provenance', () => {
  it('status and list-unmanaged show who is left alone; a run archives managed skills only; adopt hands one over', async () => {
    const home = seeded();
    const st = await hermes(['curator', 'status'], { home });
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /curator-managed skills: 2 total/);
    assert.match(st.stdout, /unmanaged \(no provenance marker\): 2 total\n {2}pre-dates marker {4}1\n {2}foreground-created {2}1/);
    const list = await hermes(['curator', 'list-unmanaged'], { home });
    assert.match(list.stdout, /unmanaged skills \(2\):\n {2}legacy-old .*\(no marker\)\n {2}mine-old .*\(created_by:null\)/);
    const run = await hermes(['curator', 'run'], { home });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!existsSync(join(home, 'skills', 'managed-old')), 'the managed idle skill is archived');
    assert.ok(existsSync(join(home, 'skills', 'legacy-old', 'SKILL.md')) && existsSync(join(home, 'skills', 'mine-old', 'SKILL.md')), 'unmanaged ones are left alone');
    const dry = await hermes(['curator', 'adopt', '--all-unmanaged', '--dry-run'], { home });
    assert.match(dry.stdout, /would adopt 2 skill\(s\) \(dry run\):\n {2}\+ legacy-old\n {2}\+ mine-old/);
    assert.equal(usage(home)['legacy-old'].created_by, undefined, 'a dry run writes nothing');
    const both = await hermes(['curator', 'adopt', 'legacy-old', '--all-unmanaged'], { home });
    assert.equal(both.code, 2);
    const one = await hermes(['curator', 'adopt', 'legacy-old'], { home });
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /adopted 'legacy-old'/);
    assert.equal(usage(home)['legacy-old'].created_by, 'agent');
    assert.equal(usage(home)['legacy-old'].last_used_at.slice(0, 10), daysAgo(200).slice(0, 10), 'the inactivity clock is kept');
    assert.match((await hermes(['curator', 'adopt', 'legacy-old'], { home })).stdout, /already curator-managed/);
    const missing = await hermes(['curator', 'adopt', 'nope'], { home });
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /skill 'nope' not found/);
    await hermes(['curator', 'run'], { home });
    assert.ok(!existsSync(join(home, 'skills', 'legacy-old')), 'adopted: now archived when idle');
    assert.ok(existsSync(join(home, 'skills', 'mine-old', 'SKILL.md')));
  });

  it('skill_manage create in the conversation marks the skill as the person’s (created_by: null)', async () => {
    const home = seeded();
    fake.enqueue(
      { text: '', toolCalls: [{ name: 'skill_manage', arguments: { action: 'create', name: 'asked-for', content: '---\nname: asked-for\ndescription: what I asked for\n---\n# Asked\nSteps.\n' } }] },
      { text: 'Created.' },
    );
    const r = await hermes(['-z', 'make me a skill', '--yolo'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.ok('created_by' in usage(home)['asked-for']);
    assert.equal(usage(home)['asked-for'].created_by, null);
    assert.match((await hermes(['curator', 'list-unmanaged'], { home })).stdout, /asked-for .*\(created_by:null\)/);
  });

  it('consolidate archives the source and forwards its cron jobs to the destination, in one step; refusals change nothing', async () => {
    const home = seeded();
    mkdirSync(join(home, 'cron'), { recursive: true });
    const job = (id: string, skills: string[]) => ({ id, name: id, prompt: 'go', skills, skill: skills[0] ?? null, schedule: { kind: 'interval', minutes: 60, display: 'every 60m' }, schedule_display: 'every 60m', enabled: true, state: 'scheduled', created_at: daysAgo(1), next_run_at: daysAgo(-1) });
    writeFileSync(join(home, 'cron', 'jobs.json'), JSON.stringify({ jobs: [job('j1', ['managed-old', 'other']), job('j2', ['umbrella', 'managed-old']), job('j3', ['other'])] }));
    const refused = await hermes(['curator', 'consolidate', 'mine-old', 'umbrella'], { home });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /"success":false/);
    assert.match(refused.stdout, /'mine-old' is not curator-managed/);
    assert.ok(existsSync(join(home, 'skills', 'mine-old', 'SKILL.md')));
    assert.match((await hermes(['curator', 'consolidate', 'managed-old', 'nowhere'], { home })).stdout, /no active local skill 'nowhere'/);
    const r = await hermes(['curator', 'consolidate', 'managed-old', 'umbrella'], { home });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const receipt = JSON.parse(r.stdout.replace(/^curator: /, ''));
    assert.equal(receipt.success, true);
    assert.deepEqual(receipt.cron_jobs_forwarded, ['j1', 'j2']);
    assert.ok(!existsSync(join(home, 'skills', 'managed-old')));
    assert.ok(existsSync(join(receipt.archived_to, 'SKILL.md')));
    const jobs = JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')).jobs as { id: string; skills: string[]; skill: string }[];
    assert.deepEqual(
      jobs.map((j) => [j.id, j.skills, j.skill]),
      [
        ['j1', ['umbrella', 'other'], 'umbrella'],
        ['j2', ['umbrella'], 'umbrella'],
        ['j3', ['other'], 'other'],
      ],
    );
    const led = await hermes(['curator', 'ledger'], { home });
    assert.match(led.stdout, new RegExp(`${receipt.ledger_entry} .* user\\s+archive\\s+managed-old`));
    const back = await hermes(['curator', 'rollback', receipt.ledger_entry, '--yes'], { home });
    assert.equal(back.code, 0, back.stderr);
    assert.ok(existsSync(join(home, 'skills', 'managed-old', 'SKILL.md')), 'the ledger entry undoes it');
  });

  it('purge deletes archives older than archive_ttl_days (or --days), asks first, records each in the ledger', async () => {
    const home = seeded();
    const off = await hermes(['curator', 'purge'], { home });
    assert.equal(off.code, 1);
    assert.match(off.stderr, /Purge is off \(curator\.archive_ttl_days is 0\)/);
    assert.equal((await hermes(['curator', 'archive', 'managed-old'], { home })).code, 0);
    assert.equal((await hermes(['curator', 'archive', 'umbrella'], { home })).code, 0);
    const old = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(join(home, 'skills', '.archive', 'managed-old'), old, old);
    writeFileSync(join(home, 'config.yaml'), `${readFileSync(join(home, 'config.yaml'), 'utf8')}\ncurator:\n  archive_ttl_days: 30\n`);
    const dry = await hermes(['curator', 'purge', '--dry-run'], { home });
    assert.match(dry.stdout, /Archived skills older than 30d:\n {2}managed-old +40d\n\(dry run: nothing deleted\)/);
    const asked = await hermes(['curator', 'purge'], { home });
    assert.notEqual(asked.code, 0, 'without a terminal or --yes nothing is deleted');
    assert.ok(existsSync(join(home, 'skills', '.archive', 'managed-old')));
    const r = await hermes(['curator', 'purge', '--yes'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /purged 1 archived skill/);
    assert.ok(!existsSync(join(home, 'skills', '.archive', 'managed-old')));
    assert.ok(existsSync(join(home, 'skills', '.archive', 'umbrella')), 'a recent archive stays');
    const led = await hermes(['curator', 'ledger'], { home });
    const id = /^ {2}([0-9a-f]{12}) .*user\s+purge\s+managed-old\s+\(1→0 file\(s\)\)/m.exec(led.stdout)?.[1];
    assert.ok(id, led.stdout);
    assert.match((await hermes(['curator', 'purge', '--days', '1', '--yes'], { home })).stdout, /no archived skills older than 1d/);
  });
});
