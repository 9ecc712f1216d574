// Slash commands about files and saved state: /save, /branch (/fork), /snapshot (/snap),
// /rollback, /diff, /worktree.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { messageText } from '../agent/repair.ts';
import type { Message } from '../llm/types.ts';
import { redactSecrets } from '../policy/redact.ts';
import { storeFor } from '../session/checkpointing.ts';
import type { Session } from '../session/session.ts';
import { createQuickSnapshot, listQuickSnapshots, pruneQuickSnapshots, restoreQuickSnapshot } from '../state/snapshots.ts';
import { ALL_SURFACES, type CommandDef } from './registry.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The conversation as a file: json (messages as stored), md or html (a readable transcript). */
export function renderConversation(session: Session, format: 'json' | 'md' | 'html', redact: boolean): string {
  const clean = (t: string) => (redact ? redactSecrets(t) : t);
  const msgs = session.history;
  if (format === 'json') {
    const body = { session_id: session.id, model: session.runtime.model, provider: session.runtime.provider, saved_at: new Date().toISOString(), messages: msgs };
    return `${clean(JSON.stringify(body, null, 2))}\n`;
  }
  const turns = msgs.flatMap((m: Message) => {
    const text = clean(messageText(m.content));
    const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${clean(c.function.arguments)})`);
    if (m.role === 'tool') return [{ who: 'tool', text: text.length > 2000 ? `${text.slice(0, 2000)}…` : text }];
    if (m.role === 'user' || m.role === 'assistant') return [{ who: m.role === 'user' ? 'You' : 'Hermes', text: [text, ...calls.map((c) => `→ ${c}`)].filter(Boolean).join('\n') }];
    return [];
  });
  if (format === 'md') return `# Conversation ${session.id}\n\n${turns.map((t) => `**${t.who}:**\n\n${t.who === 'tool' ? `\`\`\`\n${t.text}\n\`\`\`` : t.text}\n`).join('\n')}`;
  return `<!doctype html><meta charset="utf-8"><title>Conversation ${esc(session.id)}</title><style>body{font:15px/1.5 system-ui;max-width:50em;margin:2em auto}pre{white-space:pre-wrap;background:#f4f4f4;padding:.5em}</style><h1>Conversation ${esc(session.id)}</h1>\n${turns
    .map((t) => `<h3>${esc(t.who)}</h3><pre>${esc(t.text)}</pre>`)
    .join('\n')}\n`;
}

function checkpointsFor(session: Session) {
  return session.checkpointer?.store ?? storeFor(session.info.home, session.settings.config);
}

const shortDate = (iso: string) => iso.replace('T', ' ').slice(0, 16);

export function fileCommands(): CommandDef[] {
  return [
    {
      name: 'save',
      args: '<json|md|html> [filename] [redact]',
      description: 'export the current conversation to a file',
      category: 'session',
      surfaces: ['cli', 'acp'],
      completions: ['json', 'md', 'html'],
      run(ctx, args) {
        const parts = args.split(/\s+/).filter(Boolean);
        const redact = parts.some((p) => p.toLowerCase() === 'redact');
        const rest = parts.filter((p) => p.toLowerCase() !== 'redact');
        const format = (rest[0] ?? '').toLowerCase();
        if (!['json', 'md', 'html'].includes(format)) return { output: 'Usage: /save <json|md|html> [filename] [redact] — writes this conversation to a file (redact masks API keys and tokens).' };
        const s = ctx.session;
        if (!s.history.length) return { output: 'Nothing to save yet.' };
        const name = rest[1] ?? `hermes-${s.id}.${format}`;
        const path = isAbsolute(name) ? name : resolve(s.services.cwd, name);
        writeFileSync(path, renderConversation(s, format as 'json' | 'md' | 'html', redact));
        return { output: `Saved ${s.history.length} messages to ${path}${redact ? ' (secrets redacted)' : ''}.` };
      },
    },
    {
      name: 'branch',
      aliases: ['fork'],
      args: '[name]',
      description: 'branch the session: continue in a copy (the original stays as it was)',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        const s = ctx.session;
        const store = s.info.store;
        if (!store) return { output: 'This session is not saved, so it cannot be branched.' };
        if (!s.history.length) return { output: 'Nothing to branch yet: say something first.' };
        const parent = s.id;
        const parentTitle = (await store.getSession(parent))?.title;
        const id = s.newId();
        const wanted = args.trim() || `${parentTitle ?? 'Untitled'} (branch)`;
        const title = (await store.uniqueTitle(wanted)) ?? undefined;
        // Tagged as Hermes tags a /branch child, so its session pickers do not take it for a subagent.
        await store.createSession({ id, source: s.info.source ?? s.info.platform, model: s.runtime.model, systemPrompt: s.system, parentId: parent, cwd: s.services.cwd, title, modelConfig: { _branched_from: parent } });
        for (const m of s.history) await store.appendMessage(id, m);
        const history = [...s.history];
        if (s.persisted) await store.endSession(parent, 'branched');
        s.restore({ id, history, systemPrompt: s.system });
        return { output: `Branched into ${title ? `“${title}” ` : ''}(${id}); the original ${parent} is unchanged. /resume ${parent} goes back.`, action: 'new_session' };
      },
    },
    {
      name: 'snapshot',
      aliases: ['snap'],
      args: '[create [label] | restore <id> | prune [keep]]',
      description: 'snapshots of Hermes’s own state (config, state.db, .env, auth, cron)',
      category: 'session',
      surfaces: ['cli'],
      completions: ['create', 'restore', 'prune'],
      async run(ctx, args) {
        const home = ctx.session.info.home;
        const [verb = '', ...rest] = args.split(/\s+/).filter(Boolean);
        if (!verb || verb === 'list') {
          const snaps = listQuickSnapshots(home);
          if (!snaps.length) return { output: 'No state snapshots yet. /snapshot create [label] makes one.' };
          return { output: `${snaps.map((m) => `  ${m.id.padEnd(32)} ${String(m.file_count).padStart(3)} files  ${(m.total_size / 1024).toFixed(0)} KB`).join('\n')}\nRestore with /snapshot restore <id>.` };
        }
        if (verb === 'create') {
          const id = await createQuickSnapshot(home, rest.join(' ') || null);
          return { output: id ? `State snapshot created: ${id}\nRestore with: /snapshot restore ${id}` : 'No state files found to snapshot.' };
        }
        if (verb === 'restore') {
          if (!rest[0]) return { output: 'Usage: /snapshot restore <id> (see /snapshot for the list)' };
          const n = await restoreQuickSnapshot(home, rest[0]);
          return { output: `Restored ${n} file(s) from ${rest[0]}. Settings take effect in new sessions (restart Hermes to reload config.yaml).` };
        }
        if (verb === 'prune') {
          const keep = rest[0] ? Number(rest[0]) : 20;
          if (!Number.isInteger(keep) || keep < 0) return { output: 'Usage: /snapshot prune [keep] (keep: how many of the newest to keep, default 20)' };
          return { output: `Removed ${pruneQuickSnapshots(home, keep)} old snapshot(s).` };
        }
        return { output: 'Usage: /snapshot [create [label] | restore <id> | prune [keep]]' };
      },
    },
    {
      name: 'rollback',
      args: '[N [file] | diff N] [--all]',
      description: 'list or restore filesystem checkpoints (restores keep your own later edits; --all overrides)',
      category: 'session',
      surfaces: ALL_SURFACES,
      run(ctx, args) {
        const s = ctx.session;
        const store = checkpointsFor(s);
        const all = /(^|\s)--all(\s|$)/.test(args);
        const parts = args.replace(/(^|\s)--all(?=\s|$)/, ' ').split(/\s+/).filter(Boolean);
        const dir = store.workdirFor(s.services.cwd);
        const list = store.list(dir);
        if (!s.checkpointer && !list.length)
          return { output: 'Checkpoints are off. Start with `hermes --checkpoints` (or set checkpoints.enabled: true) and Hermes snapshots the directory before each file edit.' };
        if (!parts.length) {
          if (!list.length) return { output: `No checkpoints for ${dir} yet (one is taken before the first file edit of a turn).` };
          const lines = list.map((c, i) => {
            const stat = c.filesChanged ? `  (${c.filesChanged} file${c.filesChanged === 1 ? '' : 's'}, +${c.insertions}/-${c.deletions})` : '';
            return `  ${String(i + 1).padStart(2)}. ${c.shortHash}  ${shortDate(c.timestamp)}  ${c.reason}${stat}`;
          });
          return { output: `📸 Checkpoints for ${dir}:\n\n${lines.join('\n')}\n\n  /rollback <N>          restore checkpoint N (and undo the last turn)\n  /rollback diff <N>     what changed since checkpoint N\n  /rollback <N> <file>   restore one file from checkpoint N` };
        }
        const pick = (n: string) => {
          const i = Number(n);
          if (!Number.isInteger(i) || i < 1 || i > list.length) throw new Error(`No checkpoint ${n}: there are ${list.length}. See /rollback.`);
          return list[i - 1];
        };
        if (parts[0] === 'diff') {
          const cp = pick(parts[1] ?? '');
          const d = store.diff(dir, cp.hash);
          if (!d.stat && !d.diff) return { output: `Nothing changed since checkpoint ${parts[1]} (${cp.shortHash}).` };
          return { output: `${d.stat}\n\n${d.diff.length > 20_000 ? `${d.diff.slice(0, 20_000)}\n… (diff cut at 20,000 characters)` : d.diff}` };
        }
        const cp = pick(parts[0]);
        const r = store.restore(dir, cp.hash, { file: parts[1], all });
        const lines = [`⏪ Restored ${parts[1] ?? dir} to checkpoint ${cp.shortHash} (${r.reason}).`];
        if (r.skipped.length) lines.push(`Kept your own later edits in: ${r.skipped.join(', ')} (/rollback ${parts[0]} --all restores them too).`);
        if (!parts[1]) {
          // The conversation goes back too, so the agent's picture matches the files.
          const h = s.history;
          let i = h.length - 1;
          while (i >= 0 && h[i].role !== 'user') i--;
          if (i >= 0) {
            s.rewind(i);
            lines.push('The last turn was undone as well.');
          }
        }
        lines.push('A snapshot of the state before the rollback was taken: /rollback 1 undoes this.');
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'diff',
      args: '[staged|all|session] [--stat] [path…]',
      description: 'git changes in the working directory (session: what Hermes changed, from checkpoints)',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['staged', 'all', 'session', '--stat'],
      run(ctx, args) {
        const cwd = ctx.session.services.cwd;
        const parts = args.split(/\s+/).filter(Boolean);
        const stat = parts.includes('--stat');
        const mode = ['staged', 'all', 'session'].includes(parts[0] ?? '') ? parts[0] : 'unstaged';
        const paths = parts.filter((p) => p !== '--stat' && p !== mode);
        if (mode === 'session') {
          const store = checkpointsFor(ctx.session);
          const d = store.sessionDiff(store.workdirFor(cwd));
          if (!d.stat && !d.diff) return { output: 'No changes recorded: checkpoints are taken before file edits (enable them with --checkpoints).' };
          return { output: stat ? d.stat : `${d.stat}\n\n${d.diff}` };
        }
        const git = (a: string[]) => spawnSync('git', a, { cwd, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
        const inside = git(['rev-parse', '--is-inside-work-tree']);
        if (inside.status !== 0) return { output: `${cwd} is not inside a git repository.` };
        const base = ['diff', '--no-color', ...(stat ? ['--stat'] : [])];
        const a = mode === 'staged' ? [...base, '--cached'] : mode === 'all' ? [...base, 'HEAD'] : base;
        const r = git([...a, '--', ...paths]);
        if (r.status !== 0) return { output: `git diff failed: ${(r.stderr || '').trim()}` };
        let out = r.stdout.trimEnd();
        if (mode === 'all') {
          const untracked = git(['ls-files', '--others', '--exclude-standard', '--', ...paths]).stdout.trim();
          if (untracked) out += `${out ? '\n\n' : ''}Untracked:\n${untracked.split('\n').map((f) => `  ${f}`).join('\n')}`;
        }
        return { output: out || `No ${mode === 'staged' ? 'staged ' : mode === 'all' ? '' : 'unstaged '}changes.` };
      },
    },
    {
      name: 'worktree',
      args: '[new [name] | list | prune]',
      description: 'show, list, create or prune isolated git worktrees',
      category: 'session',
      surfaces: ['cli'],
      completions: ['new', 'list', 'prune'],
      async run(ctx, args) {
        const { createWorktree, listHermesWorktrees, pruneWorktrees, WorktreeError } = await import('../state/worktree.ts');
        const s = ctx.session;
        const [verb = '', name] = args.split(/\s+/).filter(Boolean);
        const cwd = s.services.cwd;
        if (!verb) return { output: `Working directory: ${cwd}${/[/\\]\.worktrees[/\\]hermes-/.test(cwd) ? ' (a Hermes worktree)' : ''}` };
        if (verb === 'list') {
          const wts = listHermesWorktrees(cwd);
          return { output: wts.length ? wts.map((w) => `  ${w.path}  [${w.branch}]`).join('\n') : 'No Hermes worktrees in this repository.' };
        }
        if (verb === 'new') {
          try {
            const wt = createWorktree(cwd, name);
            s.workIn(wt.cwd);
            return { output: `Now working in ${wt.path} (branch ${wt.branch}). The agent's tools run there from the next turn.` };
          } catch (e) {
            if (e instanceof WorktreeError) return { output: e.message };
            throw e;
          }
        }
        if (verb === 'prune') {
          const lines = pruneWorktrees(cwd);
          return { output: lines.filter(Boolean).join('\n') || 'Nothing to prune.' };
        }
        return { output: 'Usage: /worktree [new [name] | list | prune]' };
      },
    },
  ];
}
