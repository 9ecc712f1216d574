// ~/.codex/config.toml migration: the managed block, user content kept around it, idempotent
// re-runs, atomic writes, and codex itself reading the result (`codex mcp list --json`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BLOCK_BEGIN, BLOCK_END, migrateCodexConfig, removeManagedBlock, tomlString, tomlValue, translateServer } from '../../src/runners/codex/migrate.ts';
import { CODEX_BIN, codexMissing, makeCodexHome } from '../helpers/codex.ts';

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'codex-migrate-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const tools = { command: '/usr/bin/node', args: ['/opt/hermes/bin/hermes.mjs', 'mcp', 'serve', '--tools-only'], env: { HERMES_HOME: '/home/u/.hermes' } };

const USER_TOP = `# my codex settings
model = "gpt-5.5"
approval_policy = "on-request"

[model_providers.mine]
name = "Mine"
base_url = "http://127.0.0.1:9/v1"

[mcp_servers.mine]
command = "my-server"
args = ["--flag"]
`;

describe('TOML values', () => {
  it('escapes backslash first, then quotes and every control character', () => {
    assert.equal(tomlString('C:\\path\\"x"'), '"C:\\\\path\\\\\\"x\\""');
    assert.equal(tomlString('a\nb\tc\rd\fe\bf'), '"a\\nb\\tc\\rd\\fe\\bf"');
    assert.equal(tomlString('bell\u0007 del\u007f'), '"bell\\u0007 del\\u007f"');
    assert.equal(tomlValue({ 'Weird Key': ['x', 1, true] }), '{ "Weird Key" = ["x", 1, true] }');
    assert.throws(() => tomlValue(null), /cannot write null/);
  });
});

describe('Hermes mcp_servers → codex', () => {
  it('maps stdio, timeouts, enabled and tool filters, and keeps ${VAR} secrets out of the file', () => {
    const t = translateServer(
      'gh',
      { command: 'github-mcp', args: ['stdio'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', MODE: 'ro', OTHER: '${SOMETHING_ELSE}' }, cwd: '/srv', timeout: 30, connect_timeout: 10, enabled: false, tools: { include: ['search_*'], resources: false }, sampling: { enabled: true } },
      { GITHUB_TOKEN: 'ghp_secret', SOMETHING_ELSE: 'x' },
    );
    assert.deepEqual(t.table, { command: 'github-mcp', args: ['stdio'], env: { MODE: 'ro' }, env_vars: ['GITHUB_TOKEN'], cwd: '/srv', startup_timeout_sec: 10, tool_timeout_sec: 30, enabled: false, enabled_tools: ['search_*'] });
    assert.deepEqual(t.envRefs, ['GITHUB_TOKEN']);
    assert.equal(t.notes.length, 3);
    assert.match(t.notes.join('\n'), /env OTHER comes from \$\{SOMETHING_ELSE\}/);
    assert.match(t.notes.join('\n'), /tools\.resources not supported/);
    assert.match(t.notes.join('\n'), /sampling not supported/);
    assert.doesNotMatch(JSON.stringify(t.table), /ghp_secret/);
  });

  it('maps HTTP servers: literal headers, ${VAR} headers and a Bearer token by variable name', () => {
    const t = translateServer('docs', { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}', 'X-Team': 'blue', 'X-Key': '${DOCS_KEY}' }, transport: 'sse' }, {});
    assert.deepEqual(t.table, { url: 'https://mcp.example.com/mcp', bearer_token_env_var: 'DOCS_TOKEN', http_headers: { 'X-Team': 'blue' }, env_http_headers: { 'X-Key': 'DOCS_KEY' } });
    assert.match(t.notes[0], /Streamable HTTP only/);
    assert.equal(translateServer('bad', { command: 'a', url: 'http://b' }, {}).table, null);
  });
});

describe('config.toml migration', () => {
  it('writes the block before the user’s first table, keeps user content, and is idempotent', () => {
    const home = dir();
    writeFileSync(join(home, 'config.toml'), USER_TOP, { mode: 0o640 });
    const r1 = migrateCodexConfig({ codexHome: home, mcpServers: { fs: { command: 'npx', args: ['-y', 'server-fs', '/tmp'] }, mine: { command: 'other' } }, env: {}, hermesTools: tools });
    assert.deepEqual(r1.migrated, ['fs', 'hermes-tools']);
    assert.match(r1.skipped.map((s) => `${s.server}: ${s.reason}`).join('\n'), /mine: config\.toml already defines it/);
    assert.equal(r1.permissions, 'written');
    const text = readFileSync(join(home, 'config.toml'), 'utf8');
    assert.ok(text.startsWith('# my codex settings\nmodel = "gpt-5.5"\napproval_policy = "on-request"\n\n' + BLOCK_BEGIN), text);
    assert.ok(text.indexOf('default_permissions = ":workspace"') < text.indexOf('[model_providers.mine]'), 'top-level keys stay top-level');
    assert.ok(text.endsWith('[mcp_servers.mine]\ncommand = "my-server"\nargs = ["--flag"]\n'));
    assert.match(text, /\[mcp_servers\.hermes-tools\]\ncommand = "\/usr\/bin\/node"\nargs = \["\/opt\/hermes\/bin\/hermes\.mjs", "mcp", "serve", "--tools-only"\]\nenv = \{ HERMES_HOME = "\/home\/u\/\.hermes" \}/);
    assert.equal(statSync(join(home, 'config.toml')).mode & 0o777, 0o640, 'the file keeps its mode');
    const r2 = migrateCodexConfig({ codexHome: home, mcpServers: { fs: { command: 'npx', args: ['-y', 'server-fs', '/tmp'] }, mine: { command: 'other' } }, env: {}, hermesTools: tools });
    assert.equal(r2.changed, false);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), text);
    // A changed Hermes config replaces only the block.
    migrateCodexConfig({ codexHome: home, mcpServers: {}, env: {}, hermesTools: tools });
    const text3 = readFileSync(join(home, 'config.toml'), 'utf8');
    assert.doesNotMatch(text3, /server-fs/);
    assert.equal(text3.split(BLOCK_BEGIN).length, 2, 'one block');
    assert.deepEqual(readdirSync(home), ['config.toml'], 'no temp files left');
    // Disabling removes the block and gives the user's file back.
    assert.equal(removeManagedBlock(home), true);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), USER_TOP);
  });

  it('keeps the user’s own default_permissions, handles a file without tables and a missing file', () => {
    const home = dir();
    writeFileSync(join(home, 'config.toml'), 'default_permissions = ":read-only"\n');
    const r = migrateCodexConfig({ codexHome: home, mcpServers: {}, env: {}, hermesTools: null });
    assert.equal(r.permissions, 'user');
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), `default_permissions = ":read-only"\n\n${BLOCK_BEGIN}\n${BLOCK_END}\n`);
    const fresh = join(dir(), 'nested');
    const r2 = migrateCodexConfig({ codexHome: fresh, mcpServers: {}, env: {}, hermesTools: tools });
    assert.ok(r2.changed);
    assert.equal(statSync(join(fresh, 'config.toml')).mode & 0o777, 0o600);
    assert.ok(readFileSync(join(fresh, 'config.toml'), 'utf8').startsWith(BLOCK_BEGIN));
  });

  it('refuses a block without its end marker instead of guessing, and leaves the file alone', () => {
    const home = dir();
    const broken = `model = "x"\n${BLOCK_BEGIN}\n[mcp_servers.fs]\ncommand = "a"\n`;
    writeFileSync(join(home, 'config.toml'), broken);
    assert.throws(() => migrateCodexConfig({ codexHome: home, mcpServers: {}, env: {}, hermesTools: tools }), /no end marker; remove the partial block by hand/);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), broken);
  });

  it('codex itself reads the migrated file: user servers and hermes-tools are listed', { skip: codexMissing() ?? false }, () => {
    const codex = makeCodexHome('http://127.0.0.1:9/v1', '[mcp_servers.mine]\ncommand = "my-server"\nargs = ["--flag"]\n');
    try {
      const before = readFileSync(join(codex.dir, 'config.toml'), 'utf8');
      migrateCodexConfig({ codexHome: codex.dir, mcpServers: { fs: { command: 'npx', args: ['-y', 'server-fs', 'a "quoted"\tpath'], env: { TOKEN: '${TOKEN}' }, timeout: 45 } }, env: {}, hermesTools: tools });
      const r = spawnSync(CODEX_BIN, ['mcp', 'list', '--json'], { env: { ...process.env, ...codex.env }, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const servers = JSON.parse(r.stdout) as { name: string; transport: { command?: string; args?: string[]; env_vars?: string[] }; tool_timeout_sec?: number }[];
      const byName = new Map(servers.map((s) => [s.name, s]));
      assert.deepEqual([...byName.keys()].sort(), ['fs', 'hermes-tools', 'mine']);
      assert.deepEqual(byName.get('fs')!.transport.args, ['-y', 'server-fs', 'a "quoted"\tpath']);
      assert.equal(byName.get('hermes-tools')!.transport.command, '/usr/bin/node');
      // The user's part is byte-identical after the block is removed again.
      removeManagedBlock(codex.dir);
      assert.equal(readFileSync(join(codex.dir, 'config.toml'), 'utf8'), before);
      assert.ok(existsSync(join(codex.dir, 'config.toml')));
    } finally {
      codex.cleanup();
    }
  });
});
