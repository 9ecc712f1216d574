// Skills tab: installed skills (SKILL.md, files, guard verdict), enable/disable (config
// `skills.disabled`, Hermes's key, honoured by the runtime), install from a folder, git URL or
// SKILL.md URL through the same quarantine-and-scan guard as `hermes skills install`, uninstall.
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import { getKey, setConfigKeys } from '../../state/config.ts';
import { describeFindings, installSkill, scanSkillDir, SkillInstallError, uninstallSkill } from '../../state/skills-hub.ts';
import { disabledSkillNames, discoverSkills, findSkill, linkedFiles, readHubLock, type SkillProblem } from '../../state/skills.ts';
import { body, fail, str, type DashboardContext } from '../context.ts';
import type { SkillResponse, SkillsResponse } from '../api-types.ts';

export function registerSkills(app: Hono, ctx: DashboardContext): void {
  const ext = () => {
    const e = ctx.config().config.skills?.external_dirs;
    return Array.isArray(e) ? e.map(String) : [];
  };

  app.get('/api/skills', (c) => {
    const config = ctx.config().config;
    const off = disabledSkillNames(config);
    const problems: SkillProblem[] = [];
    const skills = discoverSkills(ctx.home, ext(), problems).map((s) => ({
      name: s.name,
      description: s.description,
      category: s.category ?? 'general',
      source: s.source,
      version: s.version ?? null,
      platforms: s.platforms,
      tags: s.tags,
      enabled: !off.has(s.name),
      requiredEnv: s.requiredEnv.map((v) => ({ name: v.name, set: !!ctx.env()[v.name] })),
    }));
    return c.json({ skills, problems } satisfies SkillsResponse);
  });

  app.get('/api/skills/:name', (c) => {
    const s = findSkill(discoverSkills(ctx.home, ext()), c.req.param('name'));
    if (!s) return fail(c, 404, `No installed skill named "${c.req.param('name')}".`);
    const scan = scanSkillDir(s.dir);
    const lock = readHubLock(ctx.home).installed[s.name] ?? null;
    return c.json({
      name: s.name,
      description: s.description,
      path: s.dir,
      source: s.source,
      markdown: readFileSync(s.path, 'utf8'),
      files: linkedFiles(s),
      verdict: scan.verdict,
      findings: describeFindings(scan.findings),
      installed: lock ? { from: lock.identifier, source: lock.source, at: lock.installed_at ?? null } : null,
      enabled: !disabledSkillNames(ctx.config().config).has(s.name),
    } satisfies SkillResponse);
  });

  // {name, enabled}
  app.put('/api/skills/toggle', async (c) => {
    const b = await body(c);
    const name = str(b?.name);
    if (!name || typeof b?.enabled !== 'boolean') return fail(c, 400, 'Send {"name": "skill-name", "enabled": true|false}.');
    if (!findSkill(discoverSkills(ctx.home, ext()), name)) return fail(c, 404, `No installed skill named "${name}".`);
    const loaded = ctx.config();
    const current = getKey(loaded.user, 'skills.disabled');
    const list = new Set(Array.isArray(current) ? current.map(String) : []);
    if (b.enabled) list.delete(name);
    else list.add(name);
    setConfigKeys(ctx.home, [['skills.disabled', [...list].sort()]]);
    ctx.log?.write('INFO', 'dashboard.skills', `${b.enabled ? 'enabled' : 'disabled'} skill ${name}`);
    return c.json({ ok: true, name, enabled: b.enabled, note: 'Takes effect in new sessions.' });
  });

  // {source, category?, force?}
  app.post('/api/skills/install', async (c) => {
    const b = await body(c);
    const source = str(b?.source).trim();
    if (!source) return fail(c, 400, 'Give a folder, a git URL (url#subdir works) or a SKILL.md URL.');
    const config = ctx.config().config;
    try {
      const r = await installSkill({
        home: ctx.home,
        source,
        category: str(b?.category) || undefined,
        skill: str(b?.skill) || undefined,
        force: b?.force === true,
        allowPrivateUrls: !!config.security?.allow_private_urls,
        externalDirs: ext(),
      });
      ctx.log?.write('INFO', 'dashboard.skills', `installed skill ${r.name} from ${source} (${r.verdict})`);
      return c.json({ ok: true, name: r.name, path: r.path, verdict: r.verdict, findings: describeFindings(r.findings), missingFiles: r.missingFiles, description: r.description });
    } catch (e) {
      if (e instanceof SkillInstallError) return fail(c, 422, e.message);
      return fail(c, 400, (e as Error).message);
    }
  });

  app.delete('/api/skills/:name', (c) => {
    try {
      const r = uninstallSkill(ctx.home, c.req.param('name'), ext());
      ctx.log?.write('INFO', 'dashboard.skills', `uninstalled skill ${c.req.param('name')}`);
      return c.json({ ok: true, path: r.path });
    } catch (e) {
      return fail(c, 404, (e as Error).message);
    }
  });
}
