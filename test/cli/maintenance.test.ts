// backup/import, dump, debug share, tools, update --check, uninstall, checkpoints and prompt-size on a
// seeded home, through the binary.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { sqlite } from '../../src/state/sqlite.ts';
import { checkForUpdate, compareVersions, installInfo } from '../../src/state/install.ts';
import { readZipEntries } from '../../src/state/zip.ts';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

let fake: FakeLlm;
before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
});

const hasPython = spawnSync('python3', ['-c', 'import zipfile, sqlite3'], { encoding: 'utf8' }).status === 0;
const hasGit = spawnSync('git', ['--version']).status === 0;

/** A home with a session, memories, a skill, logs, a secret and things a backup must leave out. */
async function seeded(): Promise<string> {
  const home = homeWithModel(fake.openaiBaseUrl);
  writeFileSync(join(home, '.env'), 'OPENROUTER_API_KEY=sk-or-v1-abcdefghijklmnopqrstuvwxyz0123\nTELEGRAM_BOT_TOKEN=123456:ABCDEFghijklmnopqrstu\n', { mode: 0o600 });
  fake.enqueue({ text: 'Seeded answer.' });
  const r = await hermes(['-z', 'seed a session'], { home });
  assert.equal(r.code, 0, r.stderr);
  mkdirSync(join(home, 'memories'), { recursive: true });
  writeFileSync(join(home, 'memories', 'MEMORY.md'), 'The user likes tea.\n');
  mkdirSync(join(home, 'logs'), { recursive: true });
  writeFileSync(join(home, 'logs', 'gateway.log'), 'INFO started\nERROR token=sk-or-v1-abcdefghijklmnopqrstuvwxyz0123 rejected\n');
  writeFileSync(join(home, 'gateway.pid'), '999999');
  mkdirSync(join(home, 'checkpoints', 'store'), { recursive: true });
  writeFileSync(join(home, 'checkpoints', 'store', 'HEAD'), 'ref: x');
  mkdirSync(join(home, 'cache', 'models-catalog'), { recursive: true });
  writeFileSync(join(home, 'cache', 'models-catalog', 'x.json'), '{}');
  mkdirSync(join(home, 'cache', 'images'), { recursive: true });
  writeFileSync(join(home, 'cache', 'images', 'kept.png'), 'png');
  return home;
}

describe('backup and import', () => {
  it('zips the home with a consistent state.db, leaves out runtime files, and imports it back', async () => {
    const home = await seeded();
    const zip = join(tempHome(), 'b.zip');
    const dry = await hermes(['backup', '--dry-run', '-o', zip], { home });
    assert.match(dry.stdout, /^state\.db$/m);
    assert.doesNotMatch(dry.stdout, /gateway\.pid|checkpoints\/|models-catalog|state\.db-wal/);
    assert.match(dry.stdout, /^cache\/images\/kept\.png$/m);
    const b = await hermes(['backup', '-o', zip], { home });
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stdout, /Backed up \d+ file\(s\)/);
    const names = readZipEntries(zip).map((e) => e.name);
    for (const n of ['config.yaml', '.env', 'state.db', 'memories/MEMORY.md']) assert.ok(names.includes(n), n);
    assert.ok(!names.some((n) => /gateway\.pid|^checkpoints\/|-wal$|-shm$/.test(n)), names.join(' '));
    if (hasPython) {
      const py = spawnSync('python3', ['-c', `import zipfile,sqlite3,tempfile,os\nz=zipfile.ZipFile(${JSON.stringify(zip)})\nassert z.testzip() is None\nd=tempfile.mkdtemp()\nz.extract('state.db',d)\nprint(sqlite3.connect(os.path.join(d,'state.db')).execute('select count(*) from sessions').fetchone()[0])`], { encoding: 'utf8' });
      assert.equal(py.status, 0, py.stderr);
      assert.equal(py.stdout.trim(), '1', "Python's zipfile and sqlite3 read the backup");
    }
    // Restore into a fresh home: state.db, memories and the 0600 secret come back.
    const fresh = tempHome();
    const noForce = await hermes(['import', zip], { home: fresh });
    assert.equal(noForce.code, 0, noForce.stderr);
    const db = new (sqlite().DatabaseSync)(join(fresh, 'state.db'));
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n, 2);
    db.close();
    assert.equal(readFileSync(join(fresh, 'memories', 'MEMORY.md'), 'utf8'), 'The user likes tea.\n');
    assert.equal(statSync(join(fresh, '.env')).mode & 0o777, 0o600);
    // Over an existing setup it asks first; without a terminal that means --force.
    const refuse = await hermes(['import', zip], { home });
    assert.equal(refuse.code, 2);
    assert.match(refuse.stderr, /already has a Hermes setup.*--force/);
    const bad = await hermes(['import', join(fresh, 'config.yaml')], { home: fresh });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not a zip file/);
  });

  it('--quick writes a state snapshot that /snapshot can restore', async () => {
    const home = await seeded();
    const q = await hermes(['backup', '--quick', '--label', 'before-change'], { home });
    assert.equal(q.code, 0, q.stderr);
    const id = /State snapshot created: (\S+)/.exec(q.stdout)![1];
    assert.match(id, /^\d{8}-\d{6}-before-change$/);
    const manifest = JSON.parse(readFileSync(join(home, 'state-snapshots', id, 'manifest.json'), 'utf8'));
    assert.ok(manifest.files['state.db'] > 0 && manifest.files['config.yaml'] > 0);
    assert.equal(manifest.file_count, Object.keys(manifest.files).length);
  });
});

describe('dump and debug share', () => {
  it('dump shows what is set, never the values; --show-keys shows only the ends', async () => {
    const home = await seeded();
    const d = await hermes(['dump'], { home });
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^--- hermes dump ---$/m);
    assert.match(d.stdout, /^model:\s+test-model$/m);
    assert.match(d.stdout, /^ {2}openrouter\s+set$/m);
    assert.match(d.stdout, /^ {2}platforms:\s+telegram$/m);
    assert.match(d.stdout, /^--- end dump ---$/m);
    assert.doesNotMatch(d.stdout, /abcdefghij/);
    const k = await hermes(['dump', '--show-keys'], { home });
    assert.match(k.stdout, /openrouter\s+sk-o\.\.\.0123/);
    assert.doesNotMatch(k.stdout, /abcdefghij/);
  });

  it('debug share --local prints a redacted report; upload goes to the configured paste service', async () => {
    const home = await seeded();
    const l = await hermes(['debug', 'share', '--local', '--lines', '1'], { home });
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /--- gateway\.log \(last 1 line\(s\)\) ---/);
    assert.match(l.stdout, /ERROR token=/);
    assert.doesNotMatch(l.stdout, /abcdefghijklmnopqrstuvwxyz/);
    const noYes = await hermes(['debug', 'share'], { home });
    assert.equal(noYes.code, 2);
    assert.match(noYes.stderr, /--yes/);
    const got: string[] = [];
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(body);
        res.end(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/abc123`);
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      writeFileSync(join(home, 'config.yaml'), `${readFileSync(join(home, 'config.yaml'), 'utf8')}debug:\n  paste_url: http://127.0.0.1:${(srv.address() as AddressInfo).port}/\nsecurity:\n  allow_private_urls: true\n`);
      const up = await hermes(['debug', 'share', '--yes'], { home });
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stdout, /Debug report uploaded: http:\/\/127\.0\.0\.1:\d+\/abc123/);
      assert.equal(got.length, 1);
      assert.match(got[0], /--- hermes dump ---/);
      assert.doesNotMatch(got[0], /abcdefghijklmnopqrstuvwxyz/);
    } finally {
      srv.close();
    }
  });
});

describe('debug share --nous', () => {
  it('asks the diagnostics service for a signed URL, then PUTs the gzipped, redacted envelope there', async () => {
    const home = await seeded();
    writeFileSync(join(home, 'logs', 'agent.log'), 'INFO turn\nWARN key=sk-or-v1-abcdefghijklmnopqrstuvwxyz0123 seen\n');
    const calls: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
    const srv = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const port = (srv.address() as AddressInfo).port;
        if (req.url === '/api/diagnostics/upload-url') {
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify({ uploadUrl: `http://127.0.0.1:${port}/bucket/abc?sig=1`, viewUrl: 'https://diag.example/view/abc', id: 'abc', expiresAt: '2030-01-01T00:00:00Z' }));
        } else if (req.url?.startsWith('/bucket/')) res.end();
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      writeFileSync(join(home, 'config.yaml'), `${readFileSync(join(home, 'config.yaml'), 'utf8')}security:\n  allow_private_urls: true\n`);
      const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
      const noYes = await hermes(['debug', 'share', '--nous'], { home, env: { HERMES_DIAGNOSTICS_BASE_URL: base } });
      assert.equal(noYes.code, 2);
      assert.equal(calls.length, 0);
      const up = await hermes(['debug', 'share', '--nous', '--yes'], { home, env: { HERMES_DIAGNOSTICS_BASE_URL: base } });
      assert.equal(up.code, 0, up.stderr);
      assert.match(up.stdout, /Nous-internal storage/);
      assert.match(up.stdout, /View URL {2}https:\/\/diag\.example\/view\/abc/);
      assert.match(up.stdout, /Auto-deletes at 2030-01-01T00:00:00Z/);
      assert.equal(calls.length, 2);
      const [mint, put] = calls;
      assert.equal(mint.method, 'POST');
      const asked = JSON.parse(mint.body.toString('utf8'));
      assert.equal(asked.contentType, 'application/gzip');
      assert.equal(put.method, 'PUT');
      assert.equal(put.headers['content-type'], 'application/gzip');
      assert.equal(asked.sizeBytes, put.body.length);
      const envelope = JSON.parse(gunzipSync(put.body).toString('utf8'));
      assert.equal(envelope.format, 'hermes-debug-share/1');
      assert.equal(envelope.redacted, true);
      assert.deepEqual(Object.keys(envelope.files).sort(), ['agent.log', 'gateway.log', 'report']);
      assert.match(envelope.files['agent.log'], /--- full agent\.log ---/);
      assert.match(envelope.files['agent.log'], /WARN key=/);
      assert.doesNotMatch(JSON.stringify(envelope), /abcdefghijklmnopqrstuvwxyz/);
    } finally {
      srv.close();
    }
  });

  it('says what failed when the diagnostics service refuses, and uploads nothing', async () => {
    const home = await seeded();
    const srv = http.createServer((_req, res) => res.writeHead(503).end('down'));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      writeFileSync(join(home, 'config.yaml'), `${readFileSync(join(home, 'config.yaml'), 'utf8')}security:\n  allow_private_urls: true\n`);
      const r = await hermes(['debug', 'share', '--nous', '--yes'], { home, env: { HERMES_DIAGNOSTICS_BASE_URL: `http://127.0.0.1:${(srv.address() as AddressInfo).port}` } });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /Nous upload failed: .*HTTP 503.*--local/);
    } finally {
      srv.close();
    }
  });
});

describe('hermes tools', () => {
  it('enables and disables toolsets per platform in platform_toolsets, which the CLI then uses', async () => {
    const home = homeWithModel(fake.openaiBaseUrl, 'mcp_servers:\n  myserver:\n    command: /nonexistent\n');
    const s = await hermes(['tools', '--summary'], { home });
    assert.match(s.stdout, /^cli\s+\d+ toolsets \(default\): .*terminal/m);
    const d = await hermes(['tools', 'disable', 'web', 'terminal'], { home });
    assert.equal(d.code, 0, d.stderr);
    const cfg = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(cfg, /platform_toolsets:\n {2}cli:\n {4}- browser\n/);
    assert.doesNotMatch(cfg.split('platform_toolsets:')[1], /- (web|terminal)\n/);
    const l = await hermes(['tools', 'list'], { home });
    assert.match(l.stdout, /○ terminal/);
    assert.match(l.stdout, /● file/);
    const tg = await hermes(['tools', 'disable', 'browser', '--platform', 'telegram'], { home });
    assert.equal(tg.code, 0);
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), / {2}telegram:\n/);
    const bad = await hermes(['tools', 'enable', 'warp-drive'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown toolset\(s\): warp-drive/);
    fake.enqueue({ text: 'ok' });
    const n = fake.requests.length;
    assert.equal((await hermes(['-z', 'hi'], { home })).code, 0);
    const tools = (fake.requests[n].body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    assert.ok(!tools.includes('terminal') && !tools.includes('web_search'), tools.join(' '));
    assert.ok(tools.includes('read_file'));
    const piped = await hermes(['tools'], { home });
    assert.match(piped.stdout, /Run `hermes tools` in a terminal for the picker/);
  });
});

describe('update, uninstall, checkpoints, prompt-size', () => {
  it('update --check says what an update would do and reaches nothing outside', async () => {
    const home = tempHome();
    const r = await hermes(['update', '--check'], { home, env: { GIT_ALLOW_PROTOCOL: 'file', npm_config_registry: 'http://127.0.0.1:9/', npm_config_offline: 'true' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Installed: \d+\.\d+\.\d+/m);
    assert.match(r.stdout, /`hermes update` would: (git pull --ff-only|npm install -g)/);
  });

  it('checks a git install against its upstream and an npm install against the registry', { skip: hasGit ? false : 'git is not installed' }, async () => {
    const root = tempHome();
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, env, encoding: 'utf8' }).trim();
    const origin = join(root, 'origin');
    mkdirSync(origin);
    git(origin, 'init', '-q', '-b', 'main');
    writeFileSync(join(origin, 'package.json'), JSON.stringify({ name: 'hermes-agent-ts', version: '0.1.0' }));
    git(origin, 'add', '.');
    git(origin, 'commit', '-qm', 'v1');
    git(root, 'clone', '-q', origin, 'install');
    const install = join(root, 'install');
    let c = checkForUpdate(installInfo(install));
    assert.equal(c.method, 'git');
    assert.equal(c.available, false);
    writeFileSync(join(origin, 'CHANGES'), 'new');
    git(origin, 'add', '.');
    git(origin, 'commit', '-qm', 'v2');
    c = checkForUpdate(installInfo(install));
    assert.equal(c.available, true);
    assert.deepEqual(c.plan.slice(0, 2), ['git pull --ff-only', 'npm ci (dependencies and the bundle)']);
    assert.equal(compareVersions('0.1.0', '0.2.0'), -1);
    assert.equal(compareVersions('1.10.0', '1.9.9'), 1);
    // An npm install asks the npm registry (a local fake here, through npm's own settings). The check
    // blocks while npm runs, so the fake registry lives in its own process.
    const packument = JSON.stringify({ name: 'hermes-agent-ts', 'dist-tags': { latest: '0.2.0' }, versions: { '0.1.0': { name: 'hermes-agent-ts', version: '0.1.0' }, '0.2.0': { name: 'hermes-agent-ts', version: '0.2.0' } } });
    const srv = spawn(process.execPath, ['-e', `const s=require('http').createServer((q,r)=>{r.setHeader('content-type','application/json');r.end(${JSON.stringify(packument)})});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))`]);
    const port = await new Promise<number>((r) => srv.stdout.once('data', (d) => r(Number(String(d).trim()))));
    const npmDir = join(root, 'npm-install');
    mkdirSync(npmDir);
    writeFileSync(join(npmDir, 'package.json'), JSON.stringify({ name: 'hermes-agent-ts', version: '0.1.0' }));
    const saved = process.env.npm_config_registry;
    process.env.npm_config_registry = `http://127.0.0.1:${port}/`;
    try {
      const n = checkForUpdate(installInfo(npmDir));
      assert.equal(n.method, 'npm');
      assert.equal(n.latest, '0.2.0', n.note);
      assert.equal(n.available, true);
      assert.deepEqual(n.plan[0], 'npm install -g hermes-agent-ts@latest');
    } finally {
      if (saved === undefined) delete process.env.npm_config_registry;
      else process.env.npm_config_registry = saved;
      srv.kill();
    }
  });

  it('uninstall keeps the data unless told; with --remove-data it goes', async () => {
    const home = await seeded();
    const noYes = await hermes(['uninstall', '--keep-data'], { home });
    assert.equal(noYes.code, 2);
    assert.match(noYes.stderr, /--yes/);
    const keep = await hermes(['uninstall', '--keep-data', '--yes'], { home });
    assert.equal(keep.code, 0, keep.stderr);
    assert.match(keep.stdout, /Kept your data in/);
    assert.ok(existsSync(join(home, 'state.db')));
    const rm = await hermes(['uninstall', '--remove-data', '--yes'], { home });
    assert.equal(rm.code, 0, rm.stderr);
    assert.ok(!existsSync(join(home, 'state.db')));
  });

  it('checkpoints: status, prune and clear on a store /rollback uses', { skip: hasGit ? false : 'git is not installed' }, async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const proj = join(home, 'proj');
    mkdirSync(proj);
    writeFileSync(join(proj, 'package.json'), '{}');
    writeFileSync(join(proj, 'a.txt'), 'one\n');
    fake.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'two\n' } }] }, { text: 'done' });
    assert.equal((await hermes(['--checkpoints', '-z', 'edit'], { home, cwd: proj })).code, 0);
    assert.equal(readFileSync(join(proj, 'a.txt'), 'utf8'), 'two\n');
    const st = await hermes(['checkpoints', 'status'], { home });
    assert.match(st.stdout, /Projects:\s+1/);
    assert.match(st.stdout, new RegExp(`${proj.replace(/[.]/g, '\\.')}\\s+1\\s+\\S+ ago\\s+live`));
    const pr = await hermes(['checkpoints', 'prune', '--retention-days', '0'], { home });
    assert.match(pr.stdout, /Pruned 1 project\(s\)/);
    const noForce = await hermes(['checkpoints', 'clear'], { home });
    assert.equal(noForce.code, 2);
    const cl = await hermes(['checkpoints', 'clear', '-f'], { home });
    assert.equal(cl.code, 0);
    assert.ok(!existsSync(join(home, 'checkpoints')));
  });

  it('prompt-size breaks the fixed prompt down, offline, even with no provider set up', async () => {
    const home = tempHome();
    mkdirSync(join(home, 'memories'), { recursive: true });
    writeFileSync(join(home, 'memories', 'MEMORY.md'), 'A memory worth keeping.\n');
    writeFileSync(join(home, 'AGENTS.md'), 'Project rules here.\n');
    const r = await hermes(['prompt-size', '--json'], { home, cwd: home });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.ok(j.system_prompt.bytes > 0 && j.tools.count > 5);
    assert.ok(j.blocks['memory (MEMORY.md)'].bytes > 0);
    assert.ok(j.blocks['context files (AGENTS.md …)'].bytes > 0);
    assert.equal(j.tools.by_tool.length, j.tools.count);
    const h = await hermes(['prompt-size', '--platform', 'webhook'], { home });
    assert.match(h.stdout, /Fixed prompt budget for a new webhook session/);
    assert.match(h.stdout, /Tool schemas .*\(\d+ tools\)/);
  });
});
