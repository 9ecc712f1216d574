// The skills tools: list, view (with linked files), and the agent's own skill management.
import { bumpPatch, bumpView, forget as forgetUsage, isAgentCreated, isManagedRecord, loadUsage, markCreated } from '../../state/skill-usage.ts';
import { disabledSkillNames, discoverSkills, findSkill, loadSkill, manageSkill, skillOnPlatform, viewSkill, type Skill } from '../../state/skills.ts';
import { pluginHost } from '../../plugins/state.ts';
import { skillLifecycle } from '../../plugins/skill-hooks.ts';
import { recordMutation } from '../../state/skill-ledger.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';
import type { ToolSession } from '../types.ts';

const externalDirs = (s: ToolSession): string[] => (Array.isArray(s.config.skills?.external_dirs) ? s.config.skills.external_dirs : []);

export const skillsList = defineTool({
  name: 'skills_list',
  toolset: 'skills',
  emoji: '📚',
  parallelSafe: true,
  description:
    'List installed skills (name, description, category).',
  schema: (z) =>
    z.object({ category: z.string().optional() }),
  handler(a, ctx) {
    const off = disabledSkillNames(ctx.config, ctx.platform);
    const all = discoverSkills(ctx.home, externalDirs(ctx)).filter((s) => skillOnPlatform(s, process.platform) && !off.has(s.name));
    const list = all.filter((s) => !a.category || (s.category ?? 'general') === a.category);
    const categories = [...new Set(all.map((s) => s.category ?? 'general'))].sort();
    return ok({ skills: list.map((s) => ({ name: s.name, description: s.description, category: s.category ?? 'general' })), count: list.length, categories });
  },
});

/** A skill a plugin ships (`ctx.register_skill`), loaded by its namespaced name `plugin:skill`. */
function pluginSkill(s: ToolSession, name: string): Skill | undefined {
  if (!name.includes(':')) return undefined;
  const path = pluginHost(s.home)?.skills().get(name.trim());
  if (!path) return undefined;
  try {
    return { ...loadSkill(path, 'external', null), name: name.trim() };
  } catch {
    return undefined;
  }
}

export const skillView = defineTool({
  name: 'skill_view',
  toolset: 'skills',
  emoji: '📖',
  parallelSafe: true,
  description:
    'Load a skill (SKILL.md and the list of its files); file_path reads one of those files.',
  schema: (z) =>
    z.object({
    name: z.string().min(1),
    file_path: z.string().optional(),
  }),
  async handler(a, ctx) {
    const s = ctx;
    const off = disabledSkillNames(s.config, s.platform);
    const skills = discoverSkills(s.home, externalDirs(s)).filter((x) => !off.has(x.name));
    const skill = findSkill(skills, a.name) ?? pluginSkill(s, a.name);
    if (!skill) {
      const near = skills.filter((x) => x.name.includes(a.name.toLowerCase()) || a.name.toLowerCase().includes(x.name)).map((x) => x.name);
      return fail(`No skill named "${a.name}".${near.length ? ` Did you mean: ${near.join(', ')}?` : ' See skills_list.'}`);
    }
    let view: Record<string, unknown>;
    try {
      view = viewSkill(skill, a.file_path);
    } catch (e) {
      return fail((e as Error).message);
    }
    bumpView(s.home, skill.name);
    if (!a.file_path) skillLifecycle(s.home, 'loaded', skill.name, { sessionId: s.sessionId, taskId: s.taskId });
    if (!a.file_path && skill.requiredEnv.length) {
      const missing: string[] = [];
      for (const v of skill.requiredEnv) {
        if (s.env[v.name]) continue;
        const r = await ctx.ask({ kind: 'secret', name: v.name, prompt: v.prompt ?? `The skill ${skill.name} needs ${v.name}${v.help ? ` (${v.help})` : ''}` });
        if (typeof r.answer === 'string' && r.answer) s.env[v.name] = r.answer;
        else missing.push(v.name);
      }
      if (missing.length) view.setup_needed = { missing_env: missing, note: `Set ${missing.join(', ')} in ~/.hermes/.env (or ask the user to) before running the steps that need them.` };
    }
    return ok(view);
  },
});

export const skillManage = defineTool({
  name: 'skill_manage',
  toolset: 'skills',
  emoji: '🛠️',
  description:
    'Create and fix your skills: create (content, category), edit (content), patch (old_string, new_string), delete, write_file/remove_file (file_path under references/, templates/, scripts/ or assets/).',
  schema: (z) =>
    z.object({
    action: z.enum(['create', 'edit', 'patch', 'delete', 'write_file', 'remove_file']),
    name: z.string().min(1).max(64),
    content: z.string().optional().describe('Full SKILL.md with YAML frontmatter (name, description)'),
    category: z.string().optional(),
    old_string: z.string().optional(),
    new_string: z.string().optional(),
    replace_all: z.boolean().optional(),
    file_path: z.string().optional(),
    file_content: z.string().optional(),
    absorbed_into: z.string().optional().describe('delete: the skill it was merged into'),
  }),
  handler(a, ctx) {
    const sv = ctx;
    // The curator's review pass may only change skills the agent wrote, and never a pinned one.
    if (sv.platform === 'curator' && a.action !== 'create') {
      if (!isAgentCreated(sv.home, a.name)) return fail(`${a.name} is bundled or hub-installed; the curator never changes it.`);
      const rec = loadUsage(sv.home)[a.name];
      if (!isManagedRecord(rec)) return fail(`${a.name} is not curator-managed (the person adopts it with \`hermes curator adopt ${a.name}\`); leave it alone.`);
      if (rec?.pinned) return fail(`${a.name} is pinned; only the user changes a pinned skill.`);
    }
    const dirOf = () => findSkill(discoverSkills(sv.home, externalDirs(sv)), a.name)?.dir ?? null;
    // Every change is recorded in the skill ledger (skills/.curator_ledger.jsonl), the curator's as such.
    const r = recordMutation(
      sv.home,
      { action: a.action, skill: a.name, actor: sv.platform === 'curator' ? 'curator' : 'agent', beforeRoot: a.action === 'create' ? null : dirOf(), afterRoot: dirOf, evidence: a.absorbed_into !== undefined ? { absorbed_into: a.absorbed_into } : undefined, config: sv.config },
      () => manageSkill(sv.home, a, externalDirs(sv)),
    );
    if (!r.success) return { content: JSON.stringify(r), isError: true };
    if (a.action === 'delete') forgetUsage(ctx.home, a.name);
    else if (a.action !== 'create') bumpPatch(ctx.home, a.name);
    // Hermes's provenance: skills the background review or the curator writes are curator-managed;
    // one the person asked for in the conversation is theirs (created_by: null).
    else markCreated(sv.home, a.name, sv.platform === 'curator' || ctx.caller === 'background_review' ? 'agent' : null);
    skillLifecycle(ctx.home, a.action === 'create' || a.action === 'delete' ? `${a.action}d` : 'patched', a.name, { sessionId: ctx.sessionId, taskId: ctx.taskId });
    return { content: ok(r), display: { kind: 'skill', action: a.action, name: a.name, message: r.message } };
  },
});
