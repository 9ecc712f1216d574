// `hermes claw migrate` on an OpenClaw home built here in OpenClaw's layout (openclaw.json, .env,
// workspace/ with SOUL.md, MEMORY.md, USER.md, memory/<day>.md, skills/, credentials/, exec-approvals.json).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { markdownEntries, rebrand } from '../../src/cli/claw-cmd.ts';
import { hermes, tempHome } from '../helpers/cli.ts';

function openclawHome(): { user: string; oc: string; hermesHome: string } {
  const user = tempHome('claw-user-');
  const oc = join(user, '.openclaw');
  const w = join(oc, 'workspace');
  for (const d of ['skills/deploy', 'memory']) mkdirSync(join(w, d), { recursive: true });
  mkdirSync(join(oc, 'skills', 'shared-one'), { recursive: true });
  mkdirSync(join(oc, 'credentials'), { recursive: true });
  writeFileSync(
    join(oc, 'openclaw.json'),
    `{
  // OpenClaw writes JSON5: comments and trailing commas
  "agents": { "defaults": { "model": { "primary": "Claude Opus" }, "models": { "anthropic/claude-opus-4-6": { "alias": "Claude Opus" } } } },
  "channels": {
    "telegram": { "botToken": "123456:TELEGRAMtoken" },
    "discord": { "accounts": { "default": { "token": "discord-token", "allowFrom": ["111", "222"] } } },
  },
  "models": { "providers": { "openrouter": { "baseUrl": "https://openrouter.ai/api/v1", "apiKey": "\${OPENROUTER_API_KEY}" } } },
  "mcp": { "servers": { "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"] }, "remote": { "url": "https://mcp.example.com/sse" } } },
}`,
  );
  writeFileSync(join(oc, '.env'), 'OPENROUTER_API_KEY=sk-or-from-openclaw\n');
  writeFileSync(join(w, 'SOUL.md'), '# Persona\nYou are OpenClaw, a careful assistant. Config lives in ~/.openclaw.\n');
  writeFileSync(join(w, 'MEMORY.md'), '# MEMORY.md\n## Projects\n- Maintains the openclaw repo\n- Prefers TypeScript\n\nLong paragraph about\nthe deploy process.\n');
  writeFileSync(join(w, 'USER.md'), '# USER.md\n- Name: Ada\n- Timezone: Europe/Paris\n');
  writeFileSync(join(w, 'memory', '2026-01-05.md'), '- Shipped v2 on Monday\n');
  writeFileSync(join(w, 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploy the app\n---\nRun the deploy.\n');
  writeFileSync(join(oc, 'skills', 'shared-one', 'SKILL.md'), '---\nname: shared-one\ndescription: A shared skill\n---\nBody.\n');
  writeFileSync(join(oc, 'credentials', 'telegram-default-allowFrom.json'), '{"allowFrom": ["42", 43]}');
  writeFileSync(join(oc, 'exec-approvals.json'), '{"agents": {"main": {"allowlist": [{"pattern": "git status"}, {"pattern": "npm test"}]}}}');
  writeFileSync(join(w, 'IDENTITY.md'), 'Identity notes.\n');
  const hermesHome = join(user, '.hermes');
  mkdirSync(hermesHome);
  writeFileSync(join(hermesHome, 'config.yaml'), '# my own settings\nmodel:\n  provider: openrouter\n');
  return { user, oc, hermesHome };
}

const run = (args: string[], h: { user: string; hermesHome: string }) => hermes(args, { home: h.hermesHome, env: { HOME: h.user } });

describe('hermes claw migrate', () => {
  it('turns OpenClaw markdown into memory entries and rebrands', () => {
    assert.deepEqual(markdownEntries('# MEMORY.md\n## Projects\n- one\n- two\n\npara line\nmore\n'), ['Projects: one', 'Projects: two', 'Projects: para line more']);
    assert.equal(rebrand('OpenClaw keeps ~/.openclaw; Open Claw and ClawdBot too'), 'Hermes keeps ~/.hermes; Hermes and Hermes too');
  });

  it('previews, applies with a backup and a report, keeps secrets out unless asked, and reports conflicts on a rerun', async () => {
    const h = openclawHome();
    const dry = await run(['claw', 'migrate', '--dry-run'], h);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Source:\s+.*\.openclaw/);
    assert.match(dry.stdout, /✓ soul\s+would migrate/);
    assert.match(dry.stdout, /provider-keys\s+skipped.*--migrate-secrets/);
    assert.ok(!existsSync(join(h.hermesHome, 'SOUL.md')), 'a dry run changes nothing');
    const noYes = await run(['claw', 'migrate'], h);
    assert.equal(noYes.code, 2);
    assert.match(noYes.stderr, /needs --yes/);

    const r = await run(['claw', 'migrate', '--yes'], h);
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(join(h.hermesHome, 'SOUL.md'), 'utf8'), /You are Hermes, a careful assistant\. Config lives in ~\/\.hermes\./);
    const mem = readFileSync(join(h.hermesHome, 'memories', 'MEMORY.md'), 'utf8').split('\n§\n').map((e) => e.trim());
    assert.deepEqual(mem, ['Projects: Maintains the hermes repo', 'Projects: Prefers TypeScript', 'Projects: Long paragraph about the deploy process.', 'Shipped v2 on Monday']);
    assert.match(readFileSync(join(h.hermesHome, 'memories', 'USER.md'), 'utf8'), /Name: Ada\n§\nTimezone: Europe\/Paris/);
    assert.ok(existsSync(join(h.hermesHome, 'skills', 'openclaw-imports', 'deploy', 'SKILL.md')));
    assert.ok(existsSync(join(h.hermesHome, 'skills', 'openclaw-imports', 'shared-one', 'SKILL.md')));
    const cfg = readFileSync(join(h.hermesHome, 'config.yaml'), 'utf8');
    assert.match(cfg, /^# my own settings$/m, 'config.yaml keeps its comments');
    assert.match(cfg, /default: anthropic\/claude-opus-4-6/, 'the model alias resolved through the catalog');
    assert.match(cfg, /command_allowlist:\n {2}- git status\n {2}- npm test/);
    assert.match(cfg, /mcp_servers:\n {2}files:\n {4}command: npx/);
    assert.match(cfg, /remote:\n {4}url: https:\/\/mcp\.example\.com\/sse/);
    const env = readFileSync(join(h.hermesHome, '.env'), 'utf8');
    assert.match(env, /^TELEGRAM_ALLOWED_USERS=42,43$/m);
    assert.match(env, /^DISCORD_ALLOWED_USERS=111,222$/m);
    assert.doesNotMatch(env, /TOKEN=|API_KEY=/, 'no secrets without --migrate-secrets');
    const backups = readdirSync(join(h.hermesHome, 'backups'));
    assert.ok(backups.some((b) => /^pre-migration-.*\.zip$/.test(b)));
    const reportDir = join(h.hermesHome, 'migration', 'openclaw');
    const stamp = readdirSync(reportDir)[0];
    const report = JSON.parse(readFileSync(join(reportDir, stamp, 'report.json'), 'utf8'));
    assert.equal(report.summary.error, 0);
    assert.ok(report.summary.migrated >= 8);
    assert.ok(existsSync(join(reportDir, stamp, 'archive', 'IDENTITY.md')));

    // Second run with secrets: tokens and keys arrive; what is already there is skipped, not duplicated.
    const s = await run(['claw', 'migrate', '--yes', '--migrate-secrets', '--no-backup'], h);
    assert.equal(s.code, 0, s.stderr);
    const env2 = readFileSync(join(h.hermesHome, '.env'), 'utf8');
    assert.match(env2, /^TELEGRAM_BOT_TOKEN=123456:TELEGRAMtoken$/m);
    assert.match(env2, /^DISCORD_BOT_TOKEN=discord-token$/m);
    assert.match(env2, /^OPENROUTER_API_KEY=sk-or-from-openclaw$/m, 'an ${ENV} reference resolved from OpenClaw’s .env');
    assert.equal(readFileSync(join(h.hermesHome, 'memories', 'MEMORY.md'), 'utf8').split('\n§\n').length, 4, 'no duplicate memories');
    assert.match(s.stdout, /skills\s+conflict.*--skill-conflict/);
    const renamed = await run(['claw', 'migrate', '--yes', '--no-backup', '--skill-conflict', 'rename'], h);
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.ok(existsSync(join(h.hermesHome, 'skills', 'openclaw-imports', 'deploy-imported', 'SKILL.md')));
  });

  it('cleanup archives the old folder; a missing source is one clear error', async () => {
    const h = openclawHome();
    const c = await run(['claw', 'cleanup', '--yes'], h);
    assert.equal(c.code, 0, c.stderr);
    assert.ok(existsSync(join(h.user, '.openclaw.pre-migration')));
    assert.ok(!existsSync(join(h.user, '.openclaw')));
    const m = await run(['claw', 'migrate', '--dry-run'], h);
    assert.equal(m.code, 1);
    assert.match(m.stderr, /OpenClaw directory not found: .*\.openclaw\. Point at it with --source/);
    const ok = await run(['claw', 'migrate', '--dry-run', '--source', join(h.user, '.openclaw.pre-migration')], h);
    assert.equal(ok.code, 0, ok.stderr);
  });
});
