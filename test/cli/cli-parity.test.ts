// The command line as Hermes's, where a person meets it first: a word that is no command fails
// with one clear line (a typo gets a suggestion, a prompt typed without -z is told how to ask), and
// `--reasoning <level>` sets the reasoning effort of one run, before or after `chat`.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { copyPythonHome } from '../helpers/hermes-home.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

describe('unknown commands', () => {
  it('a word that is no command fails with exit 2 and one line; typos get the command meant', async () => {
    const home = tempHome();
    const typo = await hermes(['sesions', 'list'], { home });
    assert.equal(typo.code, 2);
    assert.equal(typo.stdout, '');
    assert.equal(typo.stderr, "hermes: unknown command 'sesions'. Did you mean `hermes sessions`? (`hermes --help` lists the commands.)\n");

    const flagsFirst = await hermes(['-m', 'some/model', '--in', home, 'skils'], { home });
    assert.equal(flagsFirst.code, 2);
    assert.match(flagsFirst.stderr, /^hermes: unknown command 'skils'\. Did you mean `hermes skills`\?/);

    const none = await hermes(['frobnicate'], { home });
    assert.equal(none.code, 2);
    assert.equal(none.stderr, "hermes: unknown command 'frobnicate'. (`hermes --help` lists the commands.)\n");

    const prompt = await hermes(['what is 2+2'], { home });
    assert.equal(prompt.code, 2);
    assert.match(prompt.stderr, /unknown command 'what is 2\+2'\. To ask Hermes something, use `hermes -z "…"` or `hermes chat -q "…"`\./);
    const words = await hermes(['what', 'is', 'this'], { home });
    assert.equal(words.code, 2);
    assert.match(words.stderr, /unknown command 'what'\. Did you mean `hermes whatsapp`\? To ask Hermes something/);
    assert.equal(fake.requests.length, 0, 'nothing reached a model');
  });

  it('commands, aliases, help and option values are not taken for unknown commands', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const help = await hermes(['help'], { home });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: hermes/);
    // `-c <name>`: the word is the session name, not a command (no such session: a different error).
    const cont = await hermes(['-c', 'frobnicate'], { home });
    assert.doesNotMatch(cont.stderr, /not a hermes command/);
    fake.enqueue({ text: 'ok.' });
    const z = await hermes(['-z', 'say ok', '-m', 'test-model'], { home });
    assert.equal(z.code, 0, z.stderr);
    assert.equal(z.stdout, 'ok.\n');
    const help2 = await hermes(['--help'], { home });
    for (const c of ['backup', 'import', 'dump', 'debug', 'tools', 'update', 'uninstall', 'checkpoints', 'prompt-size', 'claw', 'logs', 'insights', 'send', 'curator'])
      assert.match(help2.stdout, new RegExp(`^  ${c} `, 'm'), `hermes --help lists ${c}`);
    assert.match(help2.stdout, /--reasoning <level>/);
  });
});

describe('--reasoning', () => {
  it('sets the effort for the run, before or after chat; a bad level fails before any request', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    let n = fake.requests.length;
    fake.enqueue({ text: 'deep.' });
    const z = await hermes(['--reasoning', 'high', '-z', 'think'], { home });
    assert.equal(z.code, 0, z.stderr);
    assert.equal(fake.requests[n].body.reasoning_effort, 'high');

    n = fake.requests.length;
    fake.enqueue({ text: 'quick.' });
    const q = await hermes(['chat', '-q', 'hi', '--reasoning', 'LOW'], { home });
    assert.equal(q.code, 0, q.stderr);
    assert.equal(fake.requests[n].body.reasoning_effort, 'low');

    n = fake.requests.length;
    fake.enqueue({ text: 'plain.' });
    const plain = await hermes(['-z', 'hi'], { home });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(fake.requests[n].body.reasoning_effort, undefined, 'config default: none sent');

    n = fake.requests.length;
    const bad = await hermes(['--reasoning', 'extreme', '-z', 'hi'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--reasoning takes one of none, minimal, low, medium, high, xhigh, max, ultra; got "extreme"\./);
    assert.equal(fake.requests.length, n);
  });
});

describe('hermes config migrate', () => {
  it('adds the missing settings with their defaults, keeps values, comments and short forms, never lowers the version', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), '# my settings\nmodel: my/model   # keep this\nagent:\n  max_turns: 42\n');
    const dry = await hermes(['config', 'migrate', '--dry-run'], { home });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^ {2}\+ agent\.reasoning_effort$/m);
    assert.doesNotMatch(dry.stdout, /\+ agent\.max_turns|\+ model\./, 'set values and the short model form are left alone');
    // An unversioned file also gets Hermes's version steps (v23 makes logs/curator, v31 turns agent.verify_on_stop off, as Python's migrate does).
    assert.match(dry.stdout, /Would add \d+ setting\(s\) with their defaults and 1 change\(s\) of Hermes's version steps \(23, 31\); config version unset → 33\. Nothing was changed\.\n$/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), '# my settings\nmodel: my/model   # keep this\nagent:\n  max_turns: 42\n');
    const r = await hermes(['config', 'migrate'], { home });
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(text, /^# my settings\nmodel: my\/model # keep this\nagent:\n {2}max_turns: 42\n/);
    assert.match(text, /^_config_version: \d+$/m);
    assert.match(text, /^ {2}reasoning_effort: ""$/m);
    assert.equal((await hermes(['config', 'get', 'agent.max_turns'], { home })).stdout.trim(), '42');
    const again = await hermes(['config', 'migrate'], { home });
    assert.match(again.stdout, /is up to date/);

    const py = copyPythonHome();
    const before = readFileSync(join(py, 'config.yaml'), 'utf8');
    const m = await hermes(['config', 'migrate'], { home: py });
    assert.equal(m.code, 0, m.stderr);
    const after = readFileSync(join(py, 'config.yaml'), 'utf8');
    assert.match(after, /^_config_version: 33$/m, 'a newer Hermes version number is kept');
    for (const line of before.split('\n').filter((l) => /^\S.*:\s*\S/.test(l))) assert.ok(after.includes(line), `kept: ${line}`);

    const broken = tempHome();
    writeFileSync(join(broken, 'config.yaml'), 'model: [unclosed\n');
    const b = await hermes(['config', 'migrate'], { home: broken });
    assert.notEqual(b.code, 0);
    assert.equal(readFileSync(join(broken, 'config.yaml'), 'utf8'), 'model: [unclosed\n');
  });
});
