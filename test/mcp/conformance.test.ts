// test-timeout: 900
// The official MCP conformance suite (@modelcontextprotocol/conformance) against our client, through
// the real binary: each scenario starts its own loopback server(s) and runs
// test/mcp/conformance-client.ts, which drives `hermes chat -q` on a pseudo-terminal. Skipped, with
// the reason printed, when the package (a devDependency) or `script` (util-linux) is missing;
// MCP_CONFORMANCE_BIN points at another copy of the package's dist/index.js.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

const BIN = process.env.MCP_CONFORMANCE_BIN ?? join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const CLIENT = `${process.execPath} ${join(ROOT, 'test', 'mcp', 'conformance-client.ts')}`;
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const skip = !existsSync(BIN)
  ? `@modelcontextprotocol/conformance is not installed (${BIN}); add it to devDependencies to run the MCP conformance suite`
  : !hasScript
    ? '`script` (util-linux) is not installed: the client runs hermes on a pseudo-terminal'
    : false;
if (skip) process.stdout.write(`# conformance suite skipped: ${skip}\n`);

interface Check {
  id: string;
  status: string;
  description?: string;
}

/** Runs the conformance CLI; returns its exit code, output and every check of every scenario it ran. */
function conformance(args: string[]): Promise<{ code: number | null; out: string; checks: Map<string, Check[]> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'client', '--command', CLIENT, '--timeout', '180000', '-o', dir, ...args], { cwd: dir, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const checks = new Map<string, Check[]>();
      const walk = (d: string, name: string) => {
        for (const e of readdirSync(d)) {
          const p = join(d, e);
          if (statSync(p).isDirectory()) walk(p, name ? `${name}/${e}` : e);
          else if (e === 'checks.json') checks.set(name.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, ''), JSON.parse(readFileSync(p, 'utf8')) as Check[]);
        }
      };
      walk(dir, '');
      resolve({ code, out, checks });
    });
  });
}

function assertPassed(r: Awaited<ReturnType<typeof conformance>>, scenarios: string[], o: { warnings?: boolean } = {}): void {
  for (const s of scenarios) {
    const checks = r.checks.get(s);
    assert.ok(checks?.length, `no checks recorded for ${s}\n${r.out.slice(-3000)}`);
    const failed = checks.filter((c) => c.status === 'FAILURE');
    assert.deepEqual(failed.map((c) => `${c.id}: ${c.description ?? ''}`), [], `${s} failed checks\n${r.out.slice(-3000)}`);
    if (!o.warnings) {
      const warned = checks.filter((c) => c.status === 'WARNING');
      assert.deepEqual(warned.map((c) => `${c.id}: ${c.description ?? ''}`), [], `${s} warned\n${r.out.slice(-3000)}`);
    }
  }
  // The CLI exits 1 on a warning too; with warnings allowed, the checks above are the verdict.
  if (!o.warnings) assert.equal(r.code, 0, r.out.slice(-3000));
}

describe('MCP conformance suite (client)', { skip, timeout: 900_000 }, () => {
  for (const scenario of ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'])
    it(scenario, { timeout: 300_000 }, async () => {
      assertPassed(await conformance(['--scenario', scenario]), [scenario]);
    });

  it('the auth suite: discovery, registration (DCR, CIMD, pre-registered), scopes and step-up, PKCE, resource, token endpoint auth', { timeout: 600_000 }, async () => {
    const r = await conformance(['--suite', 'auth']);
    const names = [...r.checks.keys()].filter((k) => k.startsWith('auth/'));
    assert.ok(names.length >= 14, `expected the 14 scenarios of the auth suite, got ${names.join(', ')}\n${r.out.slice(-2000)}`);
    // The suite runs its scenarios at once: fourteen clients race for the five callback ports the
    // CIMD document names, so basic-cimd may fall back to registration (a SHOULD: a warning). It
    // runs alone below, where it must use the metadata document.
    assertPassed(r, names, { warnings: true });
  });

  it('auth/basic-cimd alone: the client identifies itself by its metadata document', { timeout: 300_000 }, async () => {
    assertPassed(await conformance(['--scenario', 'auth/basic-cimd']), ['auth/basic-cimd']);
  });
});
