// Secrets through the file tools: Hermes's credential files (.env, auth.json,
// .anthropic_oauth.json, mcp-tokens/, a profile's) are read only when a person says yes; secret
// values in any file come back masked; search_files leaves the credential files out and is bounded
// in time and output.
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentRequest } from '../../src/agent/types.ts';
import readFile from '../../src/tools/defs/read-file.ts';
import searchFiles, { LIST_CAP, SearchClock, timed, type RgRun } from '../../src/tools/defs/search-files.ts';
import { call, makeCtx, makeServices, tmp } from './helpers.ts';

const ENV = 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\nCUSTOM_PASSWORD=hunter2hunter2\n';

function setup() {
  const s = makeServices();
  s.env.HOME = tmp('hermes-user-');
  writeFileSync(join(s.home, '.env'), ENV);
  writeFileSync(join(s.home, 'auth.json'), JSON.stringify({ providers: { nous: { access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U' } } }, null, 2));
  writeFileSync(join(s.home, 'config.yaml'), 'model: test/model\ncustom_providers:\n  - name: box\n    custom_password: hunter2hunter2\n    api_key: abcdefghijklmnopqrstuvwxyz\n');
  mkdirSync(join(s.home, 'profiles', 'work', 'mcp-tokens'), { recursive: true });
  writeFileSync(join(s.home, 'profiles', 'work', '.env'), 'WORK_TOKEN=work-secret-value-123\n');
  writeFileSync(join(s.home, 'profiles', 'work', 'mcp-tokens', 'github.json'), '{"refresh_token":"mcp-refresh-value"}\n');
  return s;
}

const asker = (answer: string, asked: AgentRequest[]) => makeCtx({ asked, answer: () => ({ answer }) });

describe('read_file of Hermes credential files asks a person', () => {
  it('is denied with nobody to answer; the model is told why; nothing of the file is shown', async () => {
    const s = setup();
    const asked: AgentRequest[] = [];
    for (const p of [join(s.home, '.env'), join(s.home, 'auth.json'), join(s.home, 'profiles/work/.env'), join(s.home, 'profiles/work/mcp-tokens/github.json')]) {
      const r = await call(readFile, { path: p }, s, makeCtx({ asked }));
      assert.equal(r.isError, true, p);
      assert.match(r.json.error, /BLOCKED: .* holds Hermes's credentials .* nobody is here to approve it/);
      assert.doesNotMatch(r.raw, /OPENAI_API_KEY|access_token|WORK_TOKEN|refresh_token/);
    }
    assert.equal(asked.length, 4);
    assert.equal(asked[0].kind, 'approval');
    assert.match((asked[0] as { command: string }).command, /^read_file .*\.env$/);
  });

  it('through a symlink or a hard link the agent made, it is still the credential file', async () => {
    const s = setup();
    symlinkSync(join(s.home, '.env'), join(s.cwd, 'notes.txt'));
    const asked: AgentRequest[] = [];
    let r = await call(readFile, { path: 'notes.txt' }, s, makeCtx({ asked }));
    assert.match(r.json.error, /BLOCKED/);
    try {
      linkSync(join(s.home, 'auth.json'), join(s.cwd, 'copy.json'));
    } catch (e) {
      return console.log(`# skipping hard link: ${(e as Error).message}`);
    }
    r = await call(readFile, { path: 'copy.json' }, s, makeCtx({ asked }));
    assert.match(r.json.error, /BLOCKED: .*auth\.json/);
    assert.equal(asked.length, 2);
  });

  it('approved once: shown with every secret masked; approved for the session: not asked again', async () => {
    const s = setup();
    const asked: AgentRequest[] = [];
    const r = await call(readFile, { path: join(s.home, '.env') }, s, asker('once', asked));
    assert.equal(r.isError, false, r.raw);
    assert.match(r.json.content, /1\|OPENAI_API_KEY=sk-proj-\.\.\.6789/);
    assert.match(r.json.content, /2\|CUSTOM_PASSWORD=\*\*\*/);
    assert.doesNotMatch(r.raw, /hunter2|abcdefghijklmnop/);
    await call(readFile, { path: join(s.home, 'auth.json') }, s, asker('session', asked));
    await call(readFile, { path: join(s.home, 'auth.json') }, s, asker('deny', asked));
    assert.equal(asked.length, 2, 'a session approval is remembered');
  });

  it('ordinary files are not asked about; secret-named values in them are masked (config.yaml, a project .env)', async () => {
    const s = setup();
    writeFileSync(join(s.cwd, '.env'), 'DB_PASSWORD=projectsecret\n');
    const asked: AgentRequest[] = [];
    const c = await call(readFile, { path: join(s.home, 'config.yaml') }, s, makeCtx({ asked }));
    assert.equal(c.isError, false, c.raw);
    assert.match(c.json.content, /4\| {4}custom_password: \*\*\*/);
    assert.match(c.json.content, /5\| {4}api_key: \.\.\.wxyz/);
    assert.doesNotMatch(c.raw, /hunter2|abcdefghijklmnop/);
    const p = await call(readFile, { path: '.env' }, s, makeCtx({ asked }));
    assert.match(p.json.content, /DB_PASSWORD=\*\*\*/);
    assert.equal(asked.length, 0);
  });
});

describe('search_files and Hermes credential files', () => {
  it('a search over HERMES_HOME leaves them out whatever matched, and says so; config.yaml values are masked', async () => {
    const s = setup();
    const asked: AgentRequest[] = [];
    for (const output_mode of ['content', 'files_only', 'count'] as const) {
      const r = await call(searchFiles, { pattern: 'hunter2|TOKEN|refresh', path: s.home, output_mode }, s, makeCtx({ asked }));
      assert.equal(r.isError, false, r.raw);
      const shown = JSON.stringify([r.json.matches, r.json.files, r.json.counts]);
      assert.doesNotMatch(shown, /\.env|auth\.json|github\.json|work-secret|mcp-refresh/, output_mode);
      assert.doesNotMatch(r.raw, /work-secret|mcp-refresh|WORK_TOKEN/, output_mode);
      assert.match(shown, /config\.yaml/, output_mode);
      assert.match(r.json.not_searched, /Hermes credential files were not searched: .*\.env/);
      if (output_mode === 'content') assert.match(r.raw, /"content":" {4}custom_password: \*\*\*"/);
    }
    // The same note when nothing matched anywhere: what is left out says nothing about content.
    const none = await call(searchFiles, { pattern: 'zzz-no-such-text', path: s.home }, s, makeCtx({ asked }));
    assert.match(none.json.not_searched, /\.env/);
    assert.equal(asked.length, 0);
  });

  it('a hard link or symlinked folder elsewhere does not bring them back', async () => {
    const s = setup();
    try {
      linkSync(join(s.home, '.env'), join(s.cwd, 'env-copy'));
    } catch (e) {
      return console.log(`# skipping: ${(e as Error).message}`);
    }
    const r = await call(searchFiles, { pattern: 'OPENAI' }, s);
    assert.equal(r.json.total_count, 0, r.raw);
  });

  it('aimed at one: asks first; denied with nobody to answer, allowed (masked) when the person says yes', async () => {
    const s = setup();
    const asked: AgentRequest[] = [];
    const denied = await call(searchFiles, { pattern: 'KEY', path: join(s.home, '.env') }, s, makeCtx({ asked }));
    assert.match(denied.json.error, /BLOCKED: .*\.env holds Hermes's credentials/);
    const dir = await call(searchFiles, { pattern: 'refresh', path: join(s.home, 'profiles/work/mcp-tokens') }, s, makeCtx({ asked }));
    assert.match(dir.json.error, /BLOCKED/);
    const yes = await call(searchFiles, { pattern: 'KEY', path: join(s.home, '.env') }, s, asker('once', asked));
    assert.equal(yes.json.total_count, 1, yes.raw);
    assert.match(yes.raw, /sk-proj-\.\.\.6789/);
    assert.doesNotMatch(yes.raw, /abcdefghijklmnop/);
    assert.equal(asked.length, 3);
    assert.match((asked[0] as { command: string }).command, /^search_files .*\.env$/);
  });

  it("never shows a process's environment under /proc", async () => {
    const s = setup();
    const r = await call(searchFiles, { pattern: 'PATH', path: `/proc/${process.pid}`, output_mode: 'files_only' }, s);
    assert.doesNotMatch(r.raw, /environ/);
  });
});

describe('search_files is bounded', () => {
  it('a search over / returns within its time limit, with what it found and a note', async () => {
    const s = setup();
    s.config = { ...s.config, file_search_timeout_seconds: 0.5 } as typeof s.config;
    for (const output_mode of ['content', 'files_only'] as const) {
      const r = await call(searchFiles, { pattern: 'zq9-unlikely-\\d{40}', path: '/', output_mode }, s);
      assert.equal(r.isError, false, r.raw);
      assert.equal(r.json.timed_out, true, r.raw);
      assert.match(r.json.note, /stopped after 0\.5s \(file_search_timeout_seconds\)/);
    }
    const names = await call(searchFiles, { pattern: '*', target: 'files', path: '/' }, s);
    assert.ok(names.json.timed_out || names.json.total_count_is_lower_bound, names.raw.slice(0, 300));
  });

  it('a small search is not cut', async () => {
    const s = setup();
    writeFileSync(join(s.cwd, 'a.txt'), 'needle\n');
    const r = await call(searchFiles, { pattern: 'needle' }, s);
    assert.equal(r.json.total_count, 1);
    assert.equal(r.json.timed_out, undefined);
  });

  it('streams: lines found before the limit are kept, and the run is stopped', async () => {
    let stopped = false;
    let release: () => void = () => {};
    const run: RgRun = {
      lines: (async function* () {
        yield 'a';
        yield 'b';
        // Then nothing more, as a search stuck on a slow file system.
        await new Promise<void>((r) => (release = r));
      })(),
      done: Promise.resolve({ code: null, stderr: '' }),
      stop: () => {
        stopped = true;
        release();
      },
    };
    const clock = new SearchClock(50);
    const got: string[] = [];
    for await (const l of timed(run, clock)) got.push(l);
    assert.deepEqual(got, ['a', 'b']);
    assert.equal(stopped, true);
    assert.equal(clock.expired, true);
  });

  it('file lists stop at the cap instead of collecting everything', async () => {
    const s = setup();
    const dir = join(s.cwd, 'many');
    mkdirSync(dir);
    for (let i = 0; i < LIST_CAP + 50; i++) writeFileSync(join(dir, `f${i}.txt`), '');
    const r = await call(searchFiles, { pattern: '*.txt', target: 'files', path: dir, limit: 5 }, s);
    assert.equal(r.json.total_count, LIST_CAP);
    assert.equal(r.json.total_count_is_lower_bound, true);
    assert.match(r.json.hint, /at least 20,?000|at least 20000/);
  });
});
