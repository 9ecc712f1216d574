// Slash commands for sessions, memory and skills: /title, /compress, /resume, /sessions, /memory,
// /skills, /reload-skills, and one /<skill-name> per installed skill.
import type { Session } from '../runtime/session.ts';
import { TitleConflictError } from '../state/db.ts';
import { isSessionStore, openSessionStore, type SessionStoreApi } from '../state/store/index.ts';
import { MemoryStore } from '../state/memory.ts';
import { paths } from '../state/paths.ts';
import { buildSkillInvocation, discoverSkills, parseSkillStack, skillOnPlatform, type Skill } from '../state/skills.ts';
import { ALL_SURFACES, type CommandDef, type CommandRegistry } from './registry.ts';

const when = (t: number) => {
  const d = new Date(t * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
};

/** The session's store when it has the full session API, else the configured one (opened for this call). */
async function withDb<T>(session: Session, fn: (db: SessionStoreApi) => T | Promise<T>): Promise<T> {
  const store = session.options.store;
  if (isSessionStore(store)) return fn(store);
  const db = await openSessionStore(session.options.home, session.options.config, session.options.env);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

function externalDirs(session: Session): string[] {
  const d = session.options.config.skills?.external_dirs;
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
        const store = s.options.store;
        if (!isSessionStore(store)) return { output: 'This session is not saved, so it has no title.' };
        if (!args) return { output: `Title: ${(await store.getSession(s.id))?.title ?? '(none yet: one is generated after the first exchange)'}` };
        if (!s.persisted) return { output: 'The session is saved from your first message on; set the title after it.' };
        try {
          await store.setTitle(s.id, args);
        } catch (e) {
          return { output: e instanceof TitleConflictError ? e.message : `Cannot set the title: ${(e as Error).message}` };
        }
        s.state.markTitled(true);
        return { output: `Title set: ${(await store.getSession(s.id))?.title}` };
      },
    },
    {
      name: 'compress',
      args: '[focus topic]',
      description: 'compress the conversation now (summary of older turns; full history stays saved)',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        return { output: await ctx.session.compress(args) };
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
          const id = args === 'latest' ? ((await db.mostRecentSession(s.options.source ?? s.options.platform))?.id ?? null) : await db.resolveSession(args);
          if (!id) return { output: `No session matches “${args}”. See /sessions.` };
          if (id === s.id) return { output: 'That is the current session.' };
          const row = (await db.getSession(id))!;
          const history = await db.getMessages(id);
          s.restore({ id, history, systemPrompt: row.system_prompt });
          return { output: `Resumed ${row.title ? `“${row.title}” ` : ''}(${id}): ${history.length} messages.`, action: 'new_session' };
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
        const m = s.options.config.memory ?? {};
        const store = s.state.memory?.builtin.store ?? new MemoryStore(paths.memories(s.options.home), { memory: m.memory_char_limit, user: m.user_char_limit });
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
      args: '[filter]',
      description: 'list installed skills (invoke one with /<skill-name>)',
      category: 'tools',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx, args) {
        const skills = discoverSkills(ctx.session.options.home, externalDirs(ctx.session)).filter(
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

async function recentSessions(db: SessionStoreApi, current: Session): Promise<string> {
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
    description: 'pick up skills installed or created since start',
    category: 'tools',
    surfaces: ALL_SURFACES,
    run(ctx) {
      const n = registerSkillCommands(registry(), ctx.session.options.home, externalDirs(ctx.session));
      return { output: n ? `Added ${n} skill command${n === 1 ? '' : 's'}.` : 'No new skills.' };
    },
  };
}
