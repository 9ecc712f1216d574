// Profiles end to end: `hermes profile create|use|list|show|rename|export|import|delete` and
// `-p <name>`, each profile its own HERMES_HOME (keys, sessions) under <root>/profiles/<name>.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chatHarness } from '../helpers/chat-harness.ts';
import { hermes } from '../helpers/cli.ts';

const { enqueue, fake, home } = chatHarness();

const keysSeen = () => fake().requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length).map((r) => r.apiKey);

describe('hermes profile', () => {
  it('two profiles keep separate keys and sessions; -p and the sticky default pick one', async () => {
    const root = home();
    writeFileSync(join(root, 'SOUL.md'), 'You are the root agent.\n');
    let r = await hermes(['profile', 'create', 'work', '--clone'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    const work = join(root, 'profiles', 'work');
    assert.match(r.stdout, new RegExp(`Created profile 'work' at ${work}`));
    assert.equal(readFileSync(join(work, 'SOUL.md'), 'utf8'), 'You are the root agent.\n');
    assert.equal(statSync(join(work, '.env')).mode & 0o777, 0o600);
    for (const d of ['memories', 'skills', 'cron', 'logs']) assert.ok(existsSync(join(work, d)), d);
    // The work profile gets its own key.
    writeFileSync(join(work, 'config.yaml'), readFileSync(join(work, 'config.yaml'), 'utf8').replace('api_key: test-key', 'api_key: work-key'));

    enqueue({ text: 'answer from root' });
    r = await hermes(['chat', '-q', 'root question'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    enqueue({ text: 'answer from work' });
    r = await hermes(['-p', 'work', 'chat', '-q', 'work question'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /answer from work/);
    assert.deepEqual(keysSeen().slice(-2), ['test-key', 'work-key']);
    assert.ok(existsSync(join(work, 'state.db')), 'the work session is stored in the work profile');

    const rootSessions = await hermes(['sessions', 'list', '--json'], { home: root });
    const workSessions = await hermes(['--profile', 'work', 'sessions', 'list', '--json'], { home: root });
    assert.match(rootSessions.stdout, /root question/);
    assert.doesNotMatch(rootSessions.stdout, /work question/);
    assert.match(workSessions.stdout, /work question/);
    assert.doesNotMatch(workSessions.stdout, /root question/);

    // Sticky default.
    r = await hermes(['profile', 'use', 'work'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(root, 'active_profile'), 'utf8').trim(), 'work');
    enqueue({ text: 'sticky work' });
    r = await hermes(['chat', '-q', 'which?'], { home: root });
    assert.match(r.stdout, /sticky work/);
    assert.equal(keysSeen().at(-1), 'work-key');
    const l = await hermes(['profile', 'list'], { home: root });
    assert.match(l.stdout, /^\* work\s+test-model\s+stopped\s+\(sticky default\)$/m);
    assert.match(l.stdout, /^  default\s+test-model\s+stopped$/m);
    const s = await hermes(['profile', 'show'], { home: root });
    assert.match(s.stdout, new RegExp(`Profile:  work \\(sticky default\\)\\nPath:     ${work}`));
    r = await hermes(['-p', 'default', 'profile', 'show'], { home: root });
    assert.match(r.stdout, new RegExp(`Profile:  default\\nPath:     ${root}\\n`));
    r = await hermes(['profile', 'use', 'default'], { home: root });
    assert.equal(r.code, 0);
    assert.ok(!existsSync(join(root, 'active_profile')));

    // Bad input: one clear line, non-zero exit.
    r = await hermes(['-p', 'nope', 'chat', '-q', 'x'], { home: root });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Profile 'nope' does not exist\. Create it with: hermes profile create nope/);
    r = await hermes(['profile', 'create', 'Bad Name!'], { home: root });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /invalid profile name/);
    r = await hermes(['profile', 'create', 'work'], { home: root });
    assert.match(r.stderr, /already exists/);
    r = await hermes(['profile', 'delete', 'work'], { home: root });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Add --yes to confirm/);
  });

  it('rename, export without secrets, import, delete', async () => {
    const root = home();
    let r = await hermes(['profile', 'create', 'alpha', '--clone'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    const alpha = join(root, 'profiles', 'alpha');
    writeFileSync(join(alpha, '.env'), 'OPENAI_API_KEY=sk-secret-value\n');
    writeFileSync(join(alpha, 'SOUL.md'), 'alpha soul\n');
    r = await hermes(['profile', 'rename', 'alpha', 'beta'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    const beta = join(root, 'profiles', 'beta');
    assert.ok(!existsSync(alpha) && existsSync(join(beta, 'SOUL.md')));
    const archive = join(root, 'beta.tar.gz');
    r = await hermes(['profile', 'export', 'beta', '-o', archive], { home: root });
    assert.equal(r.code, 0, r.stderr);
    r = await hermes(['profile', 'import', archive, '--name', 'gamma'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    const gamma = join(root, 'profiles', 'gamma');
    assert.equal(readFileSync(join(gamma, 'SOUL.md'), 'utf8'), 'alpha soul\n');
    assert.doesNotMatch(readFileSync(join(gamma, '.env'), 'utf8'), /sk-secret-value/, 'keys are not exported');
    r = await hermes(['profile', 'import', archive, '--name', 'gamma'], { home: root });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /already exists/);
    r = await hermes(['profile', 'delete', 'gamma', '--yes'], { home: root });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(gamma));
  });
});
