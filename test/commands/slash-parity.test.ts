// The slash commands Hermes has that this project added, through the shared registry, on a real
// Session against the fake LLM (the REPL test drives a representative set through tmux).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { runCommand, type CommandResult, type Surface, type SurfaceHooks } from '../../src/commands/registry.ts';
import { Session } from '../../src/session/session.ts';
import { loadConfig } from '../../src/state/config.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { gatewayPorts } from '../../src/gateway/command-ports.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const hasGit = spawnSync('git', ['--version']).status === 0;

function setup(o: { provider?: string; extra?: string; cwd?: string; surface?: Surface; hooks?: SurfaceHooks; interactive?: boolean; answer?: string } = {}) {
  const home = tempHome();
  writeFileSync(join(home, 'config.yaml'), `model:\n  provider: ${o.provider ?? 'custom'}\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n${o.extra ?? ''}`);
  const env = { ...process.env, HERMES_HOME: home, HOME: home };
  const store = SessionDB.open(join(home, 'state.db'));
  const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: o.cwd ?? home, platform: 'cli', interactive: o.interactive ?? true, store: new SqliteSessionStore(store), seedBundledSkills: false, backgroundTasks: false });
  // Answers requests (the destructive-command question) the way a person would.
  session.on((e) => {
    if (e.type === 'request') session.answer(e.id, o.answer ?? 'Approve once');
  });
  const registry = createCommandRegistry({ home });
  const run = async (line: string): Promise<CommandResult> => (await runCommand(registry, line, { session, surface: o.surface ?? 'cli', hooks: { gatewayPorts, ...o.hooks } })) ?? {};
  const out = async (line: string) => (await run(line)).output ?? '';
  return { home, session, store, registry, run, out };
}

describe('slash commands added for parity', () => {
  it('/save writes json, md and html; redact masks keys', async () => {
    const c = setup();
    fake.enqueue({ text: 'Your key sk-abcdefghijklmnopqrstuvwxyz123456 is set.' });
    await c.session.prompt('remember sk-abcdefghijklmnopqrstuvwxyz123456');
    assert.match(await c.out('/save'), /^Usage: \/save <json\|md\|html>/);
    assert.match(await c.out('/save json'), /Saved 2 messages to .*hermes-\d{8}_\d{6}_[0-9a-f]{6}\.json/);
    const json = JSON.parse(readFileSync(join(c.home, `hermes-${c.session.id}.json`), 'utf8'));
    assert.equal(json.messages.length, 2);
    await c.out('/save md chat.md redact');
    const md = readFileSync(join(c.home, 'chat.md'), 'utf8');
    assert.match(md, /\*\*You:\*\*/);
    assert.doesNotMatch(md, /abcdefghijklmnopqrstuvwxyz/);
    await c.out('/save html chat.html');
    assert.match(readFileSync(join(c.home, 'chat.html'), 'utf8'), /<h3>Hermes<\/h3><pre>Your key/);
    await c.session.close();
  });

  it('/branch continues in a copy the way Hermes tags a branch; /title names it', async () => {
    const c = setup();
    fake.enqueue({ text: 'first answer' });
    await c.session.prompt('first question');
    const parent = c.session.id;
    assert.match(await c.out('/title Parent chat'), /Title set: Parent chat/);
    const r = await c.run('/fork experiment');
    assert.match(r.output!, /Branched into “experiment” \(\S+\); the original \S+ is unchanged/);
    assert.equal(r.action, 'new_session');
    assert.notEqual(c.session.id, parent);
    const child = c.store.getSession(c.session.id)!;
    assert.equal(child.parent_session_id, parent);
    assert.equal(JSON.parse(String(child.model_config))._branched_from, parent);
    assert.equal(c.store.getSession(parent)!.end_reason, 'branched');
    assert.equal(c.store.getMessages(c.session.id).length, 2);
    fake.enqueue({ text: 'branch answer' });
    await c.session.prompt('only in the branch');
    assert.equal(c.store.getMessages(parent).length, 2, 'the original is unchanged');
    await c.session.close();
  });

  it('/compress here N keeps the last N turns; --preview changes nothing', async () => {
    const c = setup({ extra: 'compression:\n  protect_first_n: 1\n  protect_last_n: 2\n  target_ratio: 0.001\n' });
    for (let i = 0; i < 4; i++) {
      fake.enqueue({ text: `answer ${i} ${'x'.repeat(400)}` });
      await c.session.prompt(`question ${i}`);
    }
    const before = c.session.history.length;
    const p = await c.out('/compact --preview');
    assert.match(p, /Preview: 8 messages/);
    assert.equal(c.session.history.length, before);
    fake.enqueue({ text: '## Goal\nSummary of the early turns.' });
    const r = await c.out('/compress here 1');
    assert.match(r, /ompress/i);
    const h = c.session.history;
    assert.equal(h.at(-2)!.content, 'question 3', 'the last turn stays as it was');
    assert.ok(h.length < before);
    await c.session.close();
  });

  it('/snapshot create, list, restore (state.db restored in place)', async () => {
    const c = setup();
    fake.enqueue({ text: 'kept' });
    await c.session.prompt('before the snapshot');
    const created = await c.out('/snapshot create before');
    const id = /State snapshot created: (\S+)/.exec(created)![1];
    assert.match(await c.out('/snap'), new RegExp(`${id}\\s+\\d+ files`));
    fake.enqueue({ text: 'later' });
    await c.session.prompt('after the snapshot');
    assert.equal(c.store.getMessages(c.session.id).length, 4);
    assert.match(await c.out(`/snapshot restore ${id}`), /Restored \d+ file\(s\)/);
    assert.equal(c.store.getMessages(c.session.id).length, 2, 'the open store sees the restored data');
    assert.match(await c.out('/snapshot restore ../etc'), /failed: Invalid snapshot id/);
    await c.session.close();
  });

  it('/rollback lists, diffs and restores checkpoints and undoes the last turn; /diff shows git changes', { skip: hasGit ? false : 'git is not installed' }, async () => {
    const proj = join(tempHome(), 'project');
    mkdirSync(proj);
    const c = setup({ extra: 'checkpoints:\n  enabled: true\n', cwd: proj });
    execFileSync('git', ['init', '-q'], { cwd: proj });
    writeFileSync(join(proj, 'notes.txt'), 'version one\n');
    execFileSync('git', ['add', 'notes.txt'], { cwd: proj });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], { cwd: proj });
    fake.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'version two\n' } }] }, { text: 'changed' });
    await c.session.prompt('change the notes');
    assert.equal(readFileSync(join(proj, 'notes.txt'), 'utf8'), 'version two\n');
    assert.match(await c.out('/diff'), /-version one\n\+version two/);
    assert.match(await c.out('/diff --stat'), /notes\.txt \| 2/);
    assert.match(await c.out('/diff session'), /-version one\n\+version two/);
    const list = await c.out('/rollback');
    assert.match(list, /📸 Checkpoints for .*:\n\n\s+1\. [0-9a-f]{7,}\s+\S+ \S+\s+before write_file/);
    assert.match(await c.out('/rollback diff 1'), /-version one\n\+version two/);
    const before = c.session.history.length;
    const r = await c.out('/rollback 1');
    assert.match(r, /⏪ Restored .* to checkpoint [0-9a-f]+ \(before write_file\)/);
    assert.match(r, /The last turn was undone as well/);
    assert.equal(readFileSync(join(proj, 'notes.txt'), 'utf8'), 'version one\n');
    assert.ok(c.session.history.length < before);
    assert.match(await c.out('/rollback 9'), /No checkpoint 9/);
    await c.session.close();
  });

  it('/btw answers on the side without touching the conversation; /background reports back; /agents lists', async () => {
    const c = setup();
    fake.enqueue({ text: 'We chose Postgres.' });
    await c.session.prompt('which database did we pick?');
    const n = fake.requests.length;
    fake.enqueue({ text: 'Postgres, for its JSON support.' });
    const b = await c.out('/btw why that database?');
    assert.equal(b, '💬 Postgres, for its JSON support.');
    const req = fake.requests[n].body;
    assert.deepEqual(req.tools ?? [], [], 'no tools');
    assert.match(JSON.stringify(req.messages), /which database did we pick/);
    assert.equal(c.session.history.length, 2, 'the conversation is untouched');
    const notices: string[] = [];
    c.session.on((e) => {
      if (e.type === 'notice') notices.push(e.message);
    });
    fake.enqueue({ text: 'Background result: 42.' });
    assert.match(await c.out('/bg compute the answer'), /Started background task #1/);
    for (let i = 0; i < 200 && !notices.length; i++) await new Promise((r) => setTimeout(r, 25));
    assert.match(notices[0], /🔔 Background task #1 finished .*:\nBackground result: 42\./);
    assert.match(await c.out('/tasks'), /bg #1 done/);
    await c.session.close();
  });

  it('/goal keeps working until the judge says it is met', async () => {
    const c = setup();
    fake.enqueue({ text: 'Step one done.' }, { text: 'CONTINUE: write the tests' }, { text: 'Tests written.' }, { text: 'DONE: everything is in place' });
    const g = await c.run('/goal ship the feature');
    assert.match(g.output!, /🎯 Goal set: ship the feature/);
    const notices: string[] = [];
    c.session.on((e) => {
      if (e.type === 'notice') notices.push(e.message);
    });
    await c.session.prompt(g.send!);
    await c.session.inbox.settle(10_000);
    const next = c.session.inbox.take();
    assert.equal(next.length, 1);
    assert.match(next[0].text, /Next step: write the tests/);
    await c.session.prompt(next[0].text);
    await c.session.inbox.settle(10_000);
    assert.match(notices.join('\n'), /🎯 Goal achieved: everything is in place/);
    assert.match(await c.out('/goal'), /Goal \(done, 2\/20 turns\)/);
    assert.match(await c.out('/subgoal has docs'), /Added criterion 1/);
    assert.match(await c.out('/goal clear'), /cleared/);
    assert.match(await c.out('/heartbeat every 5s ping'), /shortest heartbeat is 60s/);
    assert.match(await c.out('/hb every 2m check the build'), /💓 Heartbeat every 2m/);
    assert.match(await c.out('/heartbeat clear'), /cleared/);
    await c.session.close();
  });

  it('display toggles persist to config.yaml; /fast sets the service tier on requests', async () => {
    const c = setup();
    assert.match(await c.out('/timestamps on'), /Timestamps: on/);
    assert.match(await c.out('/sb'), /Status bar: on/);
    assert.match(await c.out('/focus'), /Focus view: on/);
    assert.match(await c.out('/footer on'), /Runtime footer: on/);
    assert.match(await c.out('/footer status'), /on/);
    const cfg = readFileSync(join(c.home, 'config.yaml'), 'utf8');
    assert.match(cfg, /display:\n(\s+\w+: \w+\n)*\s+timestamps: true/);
    assert.match(cfg, /statusbar: true/);
    assert.match(cfg, /runtime_footer: true/);
    assert.match(await c.out('/fast fast'), /Processing tier: fast/);
    fake.enqueue({ text: 'quick' });
    const n = fake.requests.length;
    await c.session.prompt('hi');
    assert.equal(fake.requests[n].body.service_tier, 'priority');
    assert.match(await c.out('/fast cold --global'), /saved to config\.yaml/);
    assert.match(readFileSync(join(c.home, 'config.yaml'), 'utf8'), /service_tier: cold/);
    assert.match(await c.out('/timestamps sideways'), /Usage: \/timestamps/);
    await c.session.close();
  });

  it('/image attaches to the next prompt; /copy and /prompt use the surface', async () => {
    const copied: string[] = [];
    const c = setup({ hooks: { copy: async (t) => (copied.push(t), 'to a test clipboard'), compose: async () => 'composed in the editor' } });
    const png = join(c.home, 'pic.png');
    writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    assert.match(await c.out(`/image ${png}`), /📎 Attached .*pic\.png to your next prompt \(1 image\)/);
    assert.match(await c.out('/image nope.png'), /No such file/);
    assert.match(await c.out(`/image ${join(c.home, 'config.yaml')}`), /not an image/);
    fake.enqueue({ text: 'A tiny PNG.' });
    const n = fake.requests.length;
    await c.session.prompt('what is this?');
    const content = (fake.requests[n].body.messages as { role: string; content: unknown }[]).at(-1)!.content as { type: string; image_url?: { url: string } }[];
    assert.equal(content[1].type, 'image_url');
    assert.match(content[1].image_url!.url, /^data:image\/png;base64,iVBORw0K/);
    assert.equal(c.session.pendingImages.length, 0);
    assert.match(await c.out('/copy'), /Copied 11 characters to a test clipboard/);
    assert.deepEqual(copied, ['A tiny PNG.']);
    assert.match(await c.out('/copy 5'), /only 1 answers/);
    assert.deepEqual(await c.run('/compose'), { send: 'composed in the editor' });
    await c.session.close();
  });

  it('/undo N takes back N turns and returns the text; /new <name> titles the next session; confirmations', async () => {
    const c = setup();
    for (const q of ['one', 'two', 'three']) {
      fake.enqueue({ text: `re ${q}` });
      await c.session.prompt(q);
    }
    const u = await c.run('/undo 2');
    assert.match(u.output!, /Undid 2 messages \(4 message\(s\) removed\): "two"/);
    assert.equal(u.prefill, 'two');
    assert.equal(c.session.history.length, 2);
    const r = await c.run('/new Fresh start');
    assert.equal(r.action, 'new_session');
    fake.enqueue({ text: 'hello' });
    await c.session.prompt('hi');
    assert.equal(c.store.getSession(c.session.id)!.title, 'Fresh start');
    await c.session.close();
    // "Always approve" stops the question and says so in config.yaml; Cancel keeps everything.
    const always = setup({ answer: 'Always approve (stop asking)' });
    fake.enqueue({ text: 'x' });
    await always.session.prompt('x');
    assert.equal((await always.run('/new')).action, 'new_session');
    assert.match(readFileSync(join(always.home, 'config.yaml'), 'utf8'), /destructive_slash_confirm: false/);
    await always.session.close();
    const cancel = setup({ answer: 'Cancel' });
    fake.enqueue({ text: 'y' });
    await cancel.session.prompt('y');
    const id = cancel.session.id;
    assert.match(await cancel.out('/clear'), /Kept the current session/);
    assert.equal(cancel.session.id, id);
    const q = await cancel.run('/quit --delete');
    assert.match(q.output!, /Not deleted/);
    await cancel.session.close();
    const del = setup();
    fake.enqueue({ text: 'z' });
    await del.session.prompt('z');
    const delId = del.session.id;
    const d = await del.run('/quit --delete');
    assert.equal(d.action, 'quit');
    assert.equal(del.store.getSession(delId), null);
    await del.session.close();
  });

  it('/help skills and /help <text>; /whoami, /profile, /platforms, /debug, /reload, /plan, /init', async () => {
    const c = setup();
    mkdirSync(join(c.home, 'skills', 'demo-skill'), { recursive: true });
    writeFileSync(join(c.home, 'skills', 'demo-skill', 'SKILL.md'), '---\nname: demo-skill\ndescription: A demo skill\n---\nDo it.\n');
    const r2 = createCommandRegistry({ home: c.home });
    const help = async (a: string) => (await runCommand(r2, `/help ${a}`, { session: c.session, surface: 'cli', hooks: {} }))!.output!;
    assert.match(await help('skills'), /Skill commands:\n {2}\/demo-skill {2}— {2}A demo skill/);
    assert.match(await help('checkpoint'), /\/rollback/);
    assert.match(await help('rollback'), /^\/rollback \[N \[file\] \| diff N\] \[--all\] — /);
    assert.doesNotMatch((await runCommand(r2, '/help', { session: c.session, surface: 'cli', hooks: {} }))!.output!, /demo-skill/);
    assert.match(await c.out('/whoami'), /admin/);
    assert.match(await c.out('/profile'), new RegExp(`Profile: default\\nHome: {4}${c.home.replace(/[.]/g, '\\.')}`));
    assert.match(await c.out('/gateway'), /The gateway is not running/);
    const d = await c.out('/debug');
    const file = /written to (\S+) \(/.exec(d)?.[1];
    assert.ok(file, d);
    assert.match(readFileSync(file, 'utf8'), /--- hermes dump ---/);
    writeFileSync(join(c.home, '.env'), 'SOME_NEW_KEY=abc\n');
    assert.match(await c.out('/reload'), /Reloaded \.env: 1 changed \(SOME_NEW_KEY\)/);
    assert.equal(c.session.info.env.SOME_NEW_KEY, 'abc');
    const plan = await c.run('/plan add caching');
    assert.match(plan.send!, /Planning only: write an implementation plan for add caching to \.hermes\/plans\/\d{4}-\d{2}-\d{2}_\d{6}-add-caching\.md/);
    assert.match((await c.run('/init focus on tests')).send!, /AGENTS\.md.*Also: focus on tests/s);
    assert.match((await c.run('/learn this conversation')).send!, /skill_manage/);
    assert.match((await c.run('/review check edge cases')).send!, /delegate_task.*check edge cases/s);
    assert.ok(existsSync(join(c.home, 'logs')));
    assert.ok(readdirSync(join(c.home, 'logs')).some((f) => f.startsWith('debug-report-')));
    await c.session.close();
  });

  it('commands that are terminal-only are not offered on the gateway', () => {
    const r = createCommandRegistry();
    const gw = r.list('gateway').map((d) => d.name);
    for (const n of ['btw', 'agents', 'goal', 'rollback', 'branch', 'compress', 'footer', 'fast', 'whoami', 'heartbeat']) assert.ok(gw.includes(n), `${n} on the gateway`);
    for (const n of ['snapshot', 'copy', 'image', 'timestamps', 'statusbar', 'redraw', 'worktree', 'platforms', 'reload', 'debug', 'subscription']) assert.ok(!gw.includes(n), `${n} is CLI-only`);
    // The chat's own commands are in the one registry (the dashboard's list and every /help see them), on the gateway only.
    const cli = r.list('cli').map((d) => d.name);
    for (const n of ['approve', 'deny', 'sethome', 'start', 'restart', 'platform', 'commands', 'topic']) {
      assert.ok(gw.includes(n), `${n} on the gateway`);
      assert.ok(!cli.includes(n), `${n} is gateway-only`);
    }
    for (const n of ['topup', 'subscription', 'suggestions']) assert.ok(cli.includes(n), `${n} in the REPL`);
    assert.ok(gw.includes('topup') && r.list('acp').some((d) => d.name === 'topup'));
  });

  it('/topup and /subscription: the Nous Portal, a billing page, or one line saying there is none', async () => {
    const c = setup();
    const none = await c.out('/topup');
    assert.match(none, /^custom has no billing page Hermes knows of/);
    assert.equal(none.split('\n').length, 1);
    assert.match(await c.out('/upgrade'), /^custom has no billing page/);
    assert.match(await c.out('/help'), /\/topup/);
    await c.session.close();
    const nous = setup({ provider: 'nous' });
    assert.equal(nous.session.runtime.provider, 'nous');
    assert.match(await nous.out('/topup'), /Nous Portal: https:\/\/portal\.nousresearch\.com\/billing\?topup=open/);
    assert.match(await nous.out('/subscription'), /https:\/\/portal\.nousresearch\.com\/billing/);
    await nous.session.close();
    const or = setup({ provider: 'openrouter' });
    assert.match(await or.out('/topup'), /OpenRouter on its billing page: https:\/\/openrouter\.ai\/settings\/credits/);
    await or.session.close();
  });
});

describe('/skin, /indicator, /palette, /bundles, /handoff', () => {
  it('/skin lists built-in and user skins, switches through the surface and saves display.skin', async () => {
    const applied: string[] = [];
    const c = setup({ hooks: { applySkin: (s) => applied.push(`${s.name}:${s.branding.prompt_symbol}`), applyIndicator: (st) => applied.push(`indicator:${st}`) } });
    mkdirSync(join(c.home, 'skins'));
    writeFileSync(join(c.home, 'skins', 'neon.yaml'), 'name: neon\ndescription: Neon test skin\nbase: slate\nbranding:\n  prompt_symbol: "»"\ncolors:\n  prompt: "#FF00FF"\n');
    const list = await c.out('/skin');
    assert.match(list, /^Skin: default/);
    assert.match(list, /○ ares {13}War-god theme/);
    assert.match(list, /○ neon {13}Neon test skin/);
    assert.match(await c.out('/skin ares'), /Skin: ares — War-god theme/);
    assert.match(await c.out('/skin neon'), /Skin: neon/);
    assert.deepEqual(applied, ['ares:⚔', 'neon:»']);
    assert.match(readFileSync(join(c.home, 'config.yaml'), 'utf8'), /display:\n {2}skin: neon/);
    assert.match(await c.out('/skin nope'), /No skin named nope\. Skins: default, ares, .*neon/);
    assert.match(await c.out('/indicator'), /Busy indicator: unicode\. Styles: kaomoji, emoji, unicode, ascii/);
    assert.match(await c.out('/indicator ascii'), /Busy indicator: ascii \(saved as display\.indicator_style\)/);
    assert.match(await c.out('/indicator sparkly'), /Unknown style "sparkly"/);
    assert.equal(applied.at(-1), 'indicator:ascii');
    assert.match(readFileSync(join(c.home, 'config.yaml'), 'utf8'), /indicator_style: ascii/);
    // /palette opens the command menu; the surface without skins says so in one line.
    assert.equal((await c.run('/palette')).input, '/');
    const tui = setup();
    assert.match(await tui.out('/skin ares'), /^Skins: only the classic terminal REPL .* nothing changed here\.$/);
    assert.doesNotMatch(readFileSync(join(tui.home, 'config.yaml'), 'utf8'), /skin:/);
    await c.session.close();
    await tui.session.close();
  });

  it('/handoff to a platform that is not set up, and /moa without a preset, say in one line what to do', async () => {
    const c = setup();
    const moa = await c.out('/moa compare these plans');
    assert.match(moa, /^No Mixture of Agents preset: add moa\.presets\.default/);
    assert.equal(moa.split('\n').length, 1);
    const h = await c.out('/handoff telegram');
    assert.match(h, /^telegram is not set up for the gateway: `hermes gateway setup` first\.$/);
    await c.session.close();
  });

  it('/<bundle> loads every skill of a bundle in one message; /bundles lists them; a bundle wins over a skill of its name', async () => {
    const home = tempHome();
    const skill = (name: string) => {
      mkdirSync(join(home, 'skills', name), { recursive: true });
      writeFileSync(join(home, 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name} things\n---\n# ${name}\nStep for ${name}.\n`);
    };
    skill('review');
    skill('testing');
    skill('backend');
    mkdirSync(join(home, 'skill-bundles'));
    writeFileSync(join(home, 'skill-bundles', 'backend.yaml'), 'name: backend\ndescription: Backend feature work\nskills:\n  - review\n  - testing\n  - not-installed\ninstruction: Keep commits small.\n');
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n  api_key: k\n`);
    const env = { ...process.env, HERMES_HOME: home, HOME: home };
    const session = new Session({ home, config: loadConfig(home, env).config, env, cwd: home, platform: 'cli', interactive: true, seedBundledSkills: false, backgroundTasks: false });
    const registry = createCommandRegistry({ home });
    const run = async (line: string) => (await runCommand(registry, line, { session, surface: 'cli', hooks: {} })) ?? {};
    assert.match((await run('/bundles')).output ?? '', /\/backend {17}3 skill\(s\) {2}Backend feature work/);
    const r = await run('/backend add a health endpoint');
    assert.match(r.send ?? '', /invoked the "backend" skill bundle, loading 2 skills/);
    assert.match(r.send ?? '', /Skills missing \(skipped\): not-installed/);
    assert.match(r.send ?? '', /Bundle instruction: Keep commits small\./);
    assert.match(r.send ?? '', /Step for review\.[\s\S]*Step for testing\./);
    assert.doesNotMatch(r.send ?? '', /Step for backend/, 'the bundle, not the skill named backend');
    assert.match(r.send ?? '', /User instruction: add a health endpoint/);
    await session.close();
  });
});
