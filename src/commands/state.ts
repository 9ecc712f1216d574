// Slash commands for sessions, memory and skills: /title, /compress, /resume, /sessions, /memory,
// /skills, /reload-skills, and one /<skill-name> per installed skill.
import { registerBundleCommands } from './bundles.ts';
import { bumpUse } from '../state/skill-usage.ts';
import { skillLifecycle } from '../plugins/skill-hooks.ts';
import { findBoundaries } from '../agent/compress.ts';
import { estimateMessagesTokens } from '../agent/tokens.ts';
import type { Message } from '../llm/types.ts';
import type { Session } from '../session/session.ts';
import { TitleConflictError } from '../state/db.ts';
import { openSessionStore, type SessionStore } from '../state/store/index.ts';
import { MemoryStore } from '../state/memory.ts';
import { paths } from '../state/paths.ts';
import { buildSkillInvocation, discoverSkills, parseSkillStack, skillOnPlatform, type Skill } from '../state/skills.ts';
import { join } from 'node:path';
import { confirmDestructive } from './confirm.ts';
import { ALL_SURFACES, type CommandContext, type CommandDef, type CommandRegistry, type CommandResult } from './registry.ts';

const when = (t: number) => {
  const d = new Date(t * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
};

/** The session's store, else (a session not saved) the configured one, opened for this call. */
export async function withDb<T>(session: Session, fn: (db: SessionStore) => T | Promise<T>): Promise<T> {
  const store = session.info.store;
  if (store) return fn(store);
  const db = await openSessionStore(session.info.home, session.settings.config, session.info.env);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

function externalDirs(session: Session): string[] {
  const d = session.settings.config.skills?.external_dirs;
  return Array.isArray(d) ? d : [];
}

export function listLine(s: { id: string; title: string | null; preview: string; last_active: number; message_count: number; source: string }): string {
  return `${s.id}  ${when(s.last_active)}  ${String(s.message_count).padStart(4)} msgs  ${s.source.padEnd(8)}  ${s.title ?? (s.preview ? `“${s.preview}”` : '(empty)')}`;
}

export function stateCommands(): CommandDef[] {
  return [
    {
      name: 'title',
      args: '[new title]',
      description: 'show or set this session’s title',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        const s = ctx.session;
        const store = s.info.store;
        if (!store) return { output: 'This session is not saved, so it has no title.' };
        if (!args) return { output: `Title: ${(await store.getSession(s.id))?.title ?? '(none yet: one is generated after the first exchange)'}` };
        if (!s.persisted) return { output: 'The session is saved from your first message on; set the title after it.' };
        try {
          await store.setTitle(s.id, args);
        } catch (e) {
          return { output: e instanceof TitleConflictError ? e.message : `Cannot set the title: ${(e as Error).message}` };
        }
        s.keepTitle();
        return { output: `Title set: ${(await store.getSession(s.id))?.title}` };
      },
    },
    {
      name: 'compress',
      aliases: ['compact'],
      args: '[here [N] | focus <topic> | --preview]',
      description: 'compress the conversation now (here N: keep the last N turns as they are; full history stays saved)',
      category: 'session',
      surfaces: ALL_SURFACES,
      completions: ['here', 'focus', '--preview'],
      async run(ctx, args) {
        const s = ctx.session;
        const a = args.trim();
        if (a === '--preview' || a === '--dry-run') return { output: compressPreview(s) };
        const here = /^here(?:\s+(\d+))?$/i.exec(a);
        if (here) {
          const turns = Math.max(1, Number(here[1] ?? 1));
          return { output: await s.compress(undefined, { keepLastMessages: messagesInLastTurns(s.history, turns) }) };
        }
        const focus = /^focus\s+([\s\S]+)$/i.exec(a)?.[1] ?? a;
        return { output: await s.compress(focus) };
      },
    },
    {
      name: 'sessions',
      args: '[search words]',
      description: 'list recent sessions, or search them',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx, args) {
        return withDb(ctx.session, async (db) => {
          if (args) {
            const hits = await db.searchMessages(args, { limit: 10 });
            if (!hits.length) return { output: `No messages match “${args}”.` };
            return { output: hits.map((h) => `${h.session_id}  ${when(h.timestamp)}  ${h.role.padEnd(9)} ${h.snippet.replace(/\s+/g, ' ')}`).join('\n') };
          }
          return { output: await recentSessions(db, ctx.session) };
        });
      },
    },
    {
      name: 'resume',
      args: '[id | title]',
      description: 'continue a saved session (this one stays saved)',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        if (!args) return { output: `Usage: /resume <id or title>. Recent sessions:\n${await withDb(ctx.session, (db) => recentSessions(db, ctx.session))}` };
        if (ctx.hooks.resume) return { output: await ctx.hooks.resume(args) };
        const s = ctx.session;
        return withDb(s, async (db) => {
          const id = args === 'latest' ? ((await db.mostRecentSession(s.info.source ?? s.info.platform))?.id ?? null) : await db.resolveSession(args);
          if (!id) return { output: `No session matches “${args}”. See /sessions.` };
          if (id === s.id) return { output: 'That is the current session.' };
          const row = (await db.getSession(id))!;
          const history = await db.getMessages(id);
          const moved = ctx.hooks.changeDir?.(row.cwd ?? row.git_repo_root ?? null);
          s.restore({ id, history, systemPrompt: row.system_prompt });
          return { output: `Resumed ${row.title ? `“${row.title}” ` : ''}(${id}): ${history.length} messages.${moved ? `\n${moved}` : ''}`, action: 'new_session' };
        });
      },
    },
    {
      name: 'memory',
      description: 'show what Hermes remembers (MEMORY.md and USER.md)',
      category: 'tools',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session;
        const m = s.settings.config.memory ?? {};
        const store = s.memory?.builtin.store ?? new MemoryStore(paths.memories(s.info.home), { memory: m.memory_char_limit, user: m.user_char_limit });
        const block = (target: 'memory' | 'user', label: string) => {
          const entries = store.entries(target);
          const u = store.usage(target, entries);
          return `${label} (${store.path(target)}) — ${u.pct}%, ${u.chars.toLocaleString('en-US')}/${u.limit.toLocaleString('en-US')} chars\n${entries.length ? entries.map((e) => `  • ${e.replace(/\n/g, '\n    ')}`).join('\n') : '  (empty)'}`;
        };
        return {
          output: `${block('memory', 'Memory')}\n\n${block('user', 'User profile')}\n\nChanges made during a session show up in the prompt from the next session on.`,
        };
      },
    },
    {
      name: 'skills',
      args: '[filter | search <q> | browse | inspect <id> | install <id> | check | update | audit | diff <name>]',
      description: 'list installed skills, or search, inspect, install and update skills from the registries',
      category: 'tools',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['search', 'browse', 'inspect', 'install', 'check', 'update', 'audit', 'diff'],
      async run(ctx, args) {
        const [verb, ...rest] = args.split(/\s+/).filter(Boolean);
        if (verb && SKILLS_VERBS.includes(verb)) return skillsHubCommand(ctx, verb, rest.join(' '));
        const skills = discoverSkills(ctx.session.info.home, externalDirs(ctx.session)).filter(
          (s) => !args || s.name.includes(args.toLowerCase()) || s.description.toLowerCase().includes(args.toLowerCase()),
        );
        if (!skills.length) return { output: args ? `No skill matches “${args}”.` : 'No skills installed. Install one with `hermes skills install <folder|git URL|SKILL.md URL>`.' };
        const lines: string[] = [];
        let cat = '';
        for (const s of skills) {
          const c = s.category ?? 'general';
          if (c !== cat) lines.push(`${(cat = c)}:`);
          lines.push(`  /${s.name.padEnd(24)} ${s.description}${skillOnPlatform(s, process.platform) ? '' : ' (not for this OS)'}`);
        }
        return { output: lines.join('\n') };
      },
    },
  ];
}

/** How many messages the last `turns` user turns take (from the N-th last user message on). */
export function messagesInLastTurns(history: Message[], turns: number): number {
  let seen = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].role === 'user' && ++seen === turns) return history.length - i;
  }
  return history.length;
}

function compressPreview(s: Session): string {
  const settings = s.compaction.settings();
  const { headEnd, tailStart } = findBoundaries(s.history, settings);
  const total = estimateMessagesTokens(s.history);
  if (tailStart - headEnd < 1) return `Nothing to compress: ${s.history.length} messages (~${total.toLocaleString('en-US')} tokens) are all in the protected head and tail.`;
  const middle = estimateMessagesTokens(s.history.slice(headEnd, tailStart));
  return [
    `Preview: ${s.history.length} messages, ~${total.toLocaleString('en-US')} tokens.`,
    `/compress would summarize messages ${headEnd + 1}–${tailStart} (~${middle.toLocaleString('en-US')} tokens) and keep the first ${headEnd} and the last ${s.history.length - tailStart} as they are.`,
    'Nothing was changed.',
  ].join('\n');
}

const SKILLS_VERBS = ['search', 'browse', 'inspect', 'install', 'check', 'update', 'audit', 'diff'];

/** /skills search|browse|inspect|install|check|update|audit|diff: the hub, as `hermes skills …`. */
async function skillsHubCommand(ctx: CommandContext, verb: string, arg: string): Promise<CommandResult> {
  const s = ctx.session;
  const cfg = s.settings.config;
  const allow = cfg.security?.allow_private_urls === true || ['1', 'true', 'yes'].includes((s.info.env.HERMES_ALLOW_PRIVATE_URLS ?? '').toLowerCase());
  const { hubFor } = await import('../session/skills-updates.ts');
  const hub = hubFor({ home: s.info.home, loaded: { config: cfg } }, allow);
  const ext = externalDirs(s);
  const fmt = (m: { name: string; identifier: string; description: string; trust_level: string }) => `${m.trust_level === 'builtin' ? '★' : m.trust_level === 'trusted' ? '✓' : ' '} ${m.name} — ${m.description.slice(0, 80)}\n    ${m.identifier}`;
  if ((verb === 'install' || verb === 'update') && ctx.surface !== 'cli') return { output: `/skills ${verb} runs in the terminal only (hermes skills ${verb}).` };
  switch (verb) {
    case 'search':
    case 'browse': {
      if (verb === 'search' && !arg) return { output: 'Usage: /skills search <words>' };
      const r = await hub.search(arg, { limit: verb === 'browse' ? 30 : 10 });
      return { output: r.results.length ? `${r.results.map(fmt).join('\n')}\nInstall with /skills install <identifier>.` : `No skills match “${arg}”.${r.errors.length ? ` (${r.errors.join('; ')})` : ''}` };
    }
    case 'inspect': {
      if (!arg) return { output: 'Usage: /skills inspect <identifier>' };
      const m = await hub.inspect(arg);
      return { output: m ? `${fmt(m)}\nsource ${m.source} · trust ${m.trust_level}${m.tags?.length ? ` · tags ${m.tags.join(', ')}` : ''}` : `No skill “${arg}” in the registries.` };
    }
    case 'install': {
      if (!arg) return { output: 'Usage: /skills install <identifier>' };
      const ok = await confirmDestructive(ctx, `Install the skill ${arg} from the registries (scanned by the skills guard first)?`);
      if (!ok) return { output: 'Not installed.' };
      const { installFromHub } = await import('../session/skills-updates.ts');
      const r = await installFromHub(hub, arg, { home: s.info.home, allowPrivateUrls: allow, externalDirs: ext });
      return { output: `Installed ${r.name} (guard: ${r.verdict}). /reload-skills adds /${r.name} to this session.` };
    }
    case 'check': {
      const { checkSkillUpdates } = await import('../session/skills-updates.ts');
      const rows = await checkSkillUpdates(hub, s.info.home, arg || undefined);
      if (!rows.length) return { output: 'No skills were installed from a registry.' };
      return { output: rows.map((r) => `${r.status === 'update_available' ? '↑' : r.status === 'up_to_date' ? '✓' : '·'} ${r.name} — ${r.status.replace(/_/g, ' ')}${r.modified ? ' (changed locally)' : ''}`).join('\n') };
    }
    case 'update': {
      const { updateSkills } = await import('../session/skills-updates.ts');
      const done = await updateSkills(hub, s.info.home, { name: arg || undefined, allowPrivateUrls: allow, externalDirs: ext });
      return { output: done.length ? done.map((d) => `${d.result} ${d.name}${d.reason ? ` — ${d.reason}` : ''}`).join('\n') : 'Everything is up to date.' };
    }
    case 'audit': {
      const { auditSkills, describeFindings } = await import('../state/skills-hub.ts');
      const rows = auditSkills(s.info.home, arg || undefined, ext);
      return { output: rows.map((r) => [`${r.verdict === 'safe' ? '✓' : r.verdict === 'caution' ? '!' : '✗'} ${r.name} ${r.verdict}${r.modified ? ' (changed since install)' : ''}`, ...describeFindings(r.findings).map((l) => `    ${l}`)].join('\n')).join('\n') };
    }
    case 'diff': {
      if (!arg) return { output: 'Usage: /skills diff <name>' };
      const { skillDiff } = await import('../session/skills-updates.ts');
      const { packageRoot } = await import('../state/paths.ts');
      const r = await skillDiff(s.info.home, arg, { bundledRoot: join(packageRoot(), 'skills'), hub, externalDirs: ext });
      return { output: r.diff ? `# ${arg}: ${r.against} → your copy\n${r.diff}` : `${arg} is the same as ${r.against}.` };
    }
  }
  return { output: 'Usage: /skills [filter | search | browse | inspect | install | check | update | audit | diff]' };
}

async function recentSessions(db: SessionStore, current: Session): Promise<string> {
  const list = await db.listSessions({ limit: 15 });
  if (!list.length) return 'No saved sessions yet.';
  return `${list.map((x) => `${x.id === current.id ? '▶ ' : '  '}${listLine(x)}`).join('\n')}\nResume one with /resume <id or title>.`;
}

/** A /<skill-name> command: sends the skill (and any stacked ones) with the instruction. */
export function skillCommand(skill: Skill, home: string, externalDirsList: string[]): CommandDef {
  return {
    name: skill.name,
    args: '[instruction]',
    description: `skill: ${skill.description || skill.name}`.slice(0, 100),
    category: 'tools',
    surfaces: ALL_SURFACES,
    run(_ctx, args) {
      const all = discoverSkills(home, externalDirsList);
      const stack = parseSkillStack(all, skill.name, args);
      if (!stack) return { output: `The skill ${skill.name} is no longer installed. /reload-skills refreshes the list.` };
      for (const s of stack.skills) bumpUse(home, s.name);
      for (const s of stack.skills) skillLifecycle(home, 'used', s.name, { sessionId: _ctx.session.id });
      return { send: buildSkillInvocation(stack.skills, stack.instruction) };
    },
  };
}

/** Adds a command per installed skill (skipping names that clash with other commands). Returns how many. */
export function registerSkillCommands(registry: CommandRegistry, home: string, externalDirsList: string[] = []): number {
  const taken = new Set(registry.list().flatMap((d) => [d.name, ...(d.aliases ?? [])]));
  let n = 0;
  for (const s of discoverSkills(home, externalDirsList)) {
    if (taken.has(s.name)) continue;
    registry.add(skillCommand(s, home, externalDirsList));
    n++;
  }
  return n;
}

export function reloadSkillsCommand(registry: () => CommandRegistry): CommandDef {
  return {
    name: 'reload-skills',
    aliases: ['reload_skills'],
    description: 'pick up skills installed or created since start',
    category: 'tools',
    surfaces: ALL_SURFACES,
    run(ctx) {
      const b = registerBundleCommands(registry(), ctx.session.info.home, externalDirs(ctx.session));
      const n = registerSkillCommands(registry(), ctx.session.info.home, externalDirs(ctx.session));
      return { output: n || b ? [n ? `Added ${n} skill command${n === 1 ? '' : 's'}.` : '', b ? `Added ${b} bundle command${b === 1 ? '' : 's'}.` : ''].filter(Boolean).join(' ') : 'No new skills.' };
    },
  };
}
