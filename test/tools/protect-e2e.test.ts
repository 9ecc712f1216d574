// The file tools' protections through the real binary: `hermes chat -q` (no TTY, nobody to answer)
// with the fake LLM emitting the tool calls. Writes through links never reach config.yaml (also
// while a helper flips a link under 300 writes), Hermes's credential files are not read, secret
// values come back masked from read_file, search_files and the terminal, and a search over / ends
// at its time limit. Each time the config is unchanged and the model is told why.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
const children: ChildProcess[] = [];
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await fake.close();
});

const toolResults = (req: RecordedRequest): string[] => (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => String(m.content));

function setup(extra = '') {
  const home = homeWithModel(fake.openaiBaseUrl, extra);
  const work = join(home, 'work');
  mkdirSync(work);
  writeFileSync(join(home, '.env'), 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n');
  const config = readFileSync(join(home, 'config.yaml'), 'utf8');
  return { home, work, config };
}

describe('hermes chat -q: writes through links', () => {
  it('a symlink or a directory link to config.yaml is refused; the model is told why', async () => {
    const { home, work, config } = setup();
    symlinkSync(join(home, 'config.yaml'), join(work, 'settings.yaml'));
    symlinkSync(home, join(work, 'h'));
    fake.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'settings.yaml', content: 'approvals:\n  mode: off\n' } }] },
      { toolCalls: [{ name: 'patch', arguments: { path: 'h/config.yaml', old_string: 'model:', new_string: 'approvals: {mode: off}\nmodel:' } }] },
      { text: 'Could not change it.' },
    );
    const r = await hermes(['chat', '-q', 'turn approvals off'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const results = toolResults(fake.requests[fake.requests.length - 1]);
    assert.match(results[0], /not allowed: it is Hermes's own configuration.*link to it/);
    assert.match(results[1], /not allowed: it is Hermes's own configuration/);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });

  it('300 writes while a helper flips a link between a harmless file and config.yaml: config.yaml byte-identical', async () => {
    const { home, work, config } = setup();
    const harmless = join(work, 'notes.txt');
    writeFileSync(harmless, 'notes\n');
    const flip = join(work, 'flip');
    const src = `const fs=require('node:fs');const f=${JSON.stringify(flip)};const t=[${JSON.stringify(harmless)},${JSON.stringify(join(home, 'config.yaml'))}];let n=0;for(;;){const tmp=f+'.'+(n%2);try{fs.rmSync(tmp,{force:true})}catch{};fs.symlinkSync(t[n%2],tmp);fs.renameSync(tmp,f);if(++n===2)process.stdout.write('go\\n')}`;
    const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise((r) => child.stdout!.once('data', r));
    // 60 model steps of 5 parallel write_file calls each.
    const n0 = fake.requests.length;
    fake.setHandler(() => {
      const step = fake.requests.length - n0;
      if (step > 60) return { text: 'done writing' };
      return { toolCalls: Array.from({ length: 5 }, (_, i) => ({ name: 'write_file', arguments: { path: 'flip', content: `approvals:\n  mode: off # ${step}.${i}\n` } })) };
    });
    try {
      const r = await hermes(['chat', '-q', 'write it'], { home, cwd: work, env: { HERMES_DISABLE_FILE_STATE_GUARD: '1' }, timeoutMs: 300_000 });
      assert.equal(r.code, 0, r.stderr);
    } finally {
      child.kill('SIGKILL');
      fake.setHandler(null);
    }
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
    const all = fake.requests.slice(n0).flatMap(toolResults);
    assert.ok(all.some((t) => /bytes_written/.test(t)), 'some writes reached the harmless file');
    assert.ok(all.some((t) => /not allowed|changed while it was being written/.test(t)), 'some were refused');
    assert.match(readFileSync(harmless, 'utf8'), /mode: off/);
  });
});

describe('hermes chat -q: secrets', () => {
  it("Hermes's .env is not read; config and project values come back masked from read_file, search_files and the terminal", async () => {
    const { home, work, config } = setup('custom_password: hunter2hunter2\n');
    writeFileSync(join(work, 'settings.ini'), '[db]\npassword = s3cr3t-ini-value\n');
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { path: join(home, '.env') } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: join(home, 'config.yaml') } }] },
      { toolCalls: [{ name: 'search_files', arguments: { pattern: 'sk-proj|hunter2|password', path: home } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'cat -n settings.ini; grep -rn password settings.ini' } }] },
      {
        toolCalls: [
          {
            name: 'execute_code',
            arguments: {
              language: 'javascript',
              code: [
                "import { readFileSync } from 'node:fs';",
                "import { read_file } from 'hermes_tools';",
                "console.log(readFileSync('settings.ini', 'utf8'));",
                `console.log(JSON.stringify(await read_file(${JSON.stringify(join(home, '.env'))})));`,
              ].join('\n'),
            },
          },
        ],
      },
      { text: 'Read what I could.' },
    );
    const r = await hermes(['chat', '-q', 'show me the keys'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const req = fake.requests[fake.requests.length - 1];
    const results = toolResults(req);
    assert.match(results[0], /BLOCKED: .*\.env holds Hermes's credentials.*nobody is here to approve it/);
    assert.match(results[1], /custom_password: \*\*\*/);
    assert.match(results[2], /not_searched.*\.env/);
    assert.match(results[3], /password = \*\*\*/);
    assert.match(results[4], /password = \*\*\*/);
    assert.match(results[4], /BLOCKED: .*\.env holds Hermes's credentials/);
    const everything = JSON.stringify(req.body.messages);
    for (const secret of ['abcdefghijklmnopqrstuvwxyz', 'hunter2hunter2', 's3cr3t-ini-value']) assert.ok(!everything.includes(secret), `${secret} reached the model`);
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), config);
  });
});

describe('hermes chat -q: bounded search', () => {
  it('search_files over / returns at its time limit with what it found and a note', async () => {
    const { home, work } = setup('file_search_timeout_seconds: 1\n');
    fake.enqueue({ toolCalls: [{ name: 'search_files', arguments: { pattern: 'zq9-unlikely-\\d{40}', path: '/' } }] }, { text: 'searched' });
    const r = await hermes(['chat', '-q', 'search everything'], { home, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const result = toolResults(fake.requests[fake.requests.length - 1])[0];
    assert.match(result, /"timed_out":true/);
    assert.match(result, /stopped after 1s \(file_search_timeout_seconds\)/);
  });
});
