// Slash commands that start or steer work beside the conversation: /background (/bg), /btw,
// /agents (/tasks), /goal, /subgoal, /heartbeat (/hb), /refine, /review, /plan, /init, /learn.
import { messageText } from '../agent/repair.ts';
import { parseInterval, routinesOf } from '../session/goals.ts';
import { collectText } from '../session/session-aux.ts';
import { Session } from '../session/session.ts';
import { processRegistry } from '../tools/process-registry.ts';
import { agentsSubcommand, subagentLines } from './agents.ts';
import { ALL_SURFACES, type CommandDef } from './registry.ts';

interface BackgroundTask {
  n: number;
  prompt: string;
  started: number;
  status: 'running' | 'done' | 'failed';
  sessionId: string;
  session: Session;
}

const background = new WeakMap<Session, BackgroundTask[]>();

function tasksOf(s: Session): BackgroundTask[] {
  let l = background.get(s);
  if (!l) background.set(s, (l = []));
  return l;
}

const ago = (t: number) => {
  const s = Math.round((Date.now() - t) / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`;
};

/** Runs a prompt in a separate session with the same settings; reports back when done. */
function startBackground(parent: Session, prompt: string): BackgroundTask {
  const o = parent.info;
  const child = parent.sibling({
    sessionId: undefined,
    history: [],
    systemPrompt: undefined,
    interactive: false,
    backgroundTasks: false,
    parentSessionId: parent.id,
    source: o.source ?? o.platform,
    explicit: { ...o.explicit, model: parent.runtime.model, provider: parent.runtime.provider },
  });
  const list = tasksOf(parent);
  const task: BackgroundTask = { n: list.length + 1, prompt, started: Date.now(), status: 'running', sessionId: child.id, session: child };
  list.push(task);
  const work = child
    .prompt(prompt, { signal: parent.inbox.signal })
    .then((r) => {
      task.status = r.failed || r.interrupted ? 'failed' : 'done';
      const answer = r.finalText || (r.failed ? `failed: ${r.error?.message ?? 'unknown error'}` : '(no answer)');
      parent.emit({ type: 'notice', message: `🔔 Background task #${task.n} ${task.status === 'done' ? 'finished' : 'failed'} (${ago(task.started)}, session ${child.id}):\n${answer}` });
    })
    .catch((e: Error) => {
      task.status = 'failed';
      parent.emit({ type: 'notice', message: `🔔 Background task #${task.n} failed: ${e.message}` });
    })
    .finally(() => void child.close('background_done'));
  void work;
  return task;
}

const planName = (task: string) => {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const slug = task.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'plan';
  return `.hermes/plans/${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}_${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}-${slug}.md`;
};

export function workCommands(): CommandDef[] {
  return [
    {
      name: 'background',
      aliases: ['bg'],
      args: '<prompt>',
      description: 'run a prompt in a separate background session (reports here when done)',
      category: 'session',
      surfaces: ['cli'],
      midTurn: true,
      run(ctx, args) {
        if (!args.trim()) return { output: 'Usage: /background <prompt>' };
        const t = startBackground(ctx.session, args.trim());
        return { output: `Started background task #${t.n} (session ${t.sessionId}). /agents shows it; the answer appears here when it is done.` };
      },
    },
    {
      name: 'btw',
      args: '<question>',
      description: 'a side question about the conversation, answered without tools and without interrupting',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      async run(ctx, args) {
        const q = args.trim();
        if (!q) return { output: 'Usage: /btw <question>' };
        const s = ctx.session;
        const aux = s.auxiliary('btw');
        const transcript = s.history
          .filter((m) => m.role === 'user' || m.role === 'assistant')
          .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${messageText(m.content)}`)
          .filter((l) => l.length > 12)
          .join('\n\n')
          .slice(-60_000);
        const answer = await collectText(aux?.stream ?? ((req) => s.llm.stream(req)), {
          model: aux?.model ?? s.llm.active.model,
          system: 'Answer a side question about the conversation below, briefly and directly. You have no tools; do not continue the main task.',
          messages: [{ role: 'user', content: `${transcript ? `Conversation so far:\n\n${transcript}\n\n---\n\n` : ''}Side question: ${q}` }],
          tools: [],
          maxTokens: 1500,
        });
        return { output: `💬 ${answer.trim()}` };
      },
    },
    {
      name: 'agents',
      aliases: ['tasks'],
      args: '[watch <id> | unwatch | steer <id> <text> | stop <id>]',
      description: 'what runs beside the conversation: background tasks, subagents (watch, steer, stop one), processes, goal, heartbeat',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['watch', 'unwatch', 'steer', 'stop'],
      async run(ctx, args) {
        const sub = agentsSubcommand(ctx, args);
        if (sub) return sub;
        const s = ctx.session;
        const lines: string[] = [];
        lines.push(`Main session ${s.id}: ${s.busy ? 'working' : 'idle'}`);
        for (const t of background.get(s) ?? []) lines.push(`  bg #${t.n} ${t.status.padEnd(7)} ${ago(t.started).padStart(5)}  ${t.prompt.slice(0, 60)}${t.prompt.length > 60 ? '…' : ''}`);
        if (s.inbox.working) lines.push(`  ${s.inbox.working} background job(s) will report back (subagents, watched processes)`);
        lines.push(...(await subagentLines(s)));
        const procs = processRegistry(s.info.home)
          .list()
          .filter((p) => p.status === 'running');
        for (const p of procs) lines.push(`  process ${p.id}  ${p.command.slice(0, 60)}  (started ${ago(p.startedAt)} ago)`);
        const r = routinesOf(s);
        if (r.goal) lines.push(`  goal (${r.goal.status}, ${r.goal.turns}/${r.goal.budget} turns): ${r.goal.text}`);
        if (r.heartbeat) lines.push(`  heartbeat every ${Math.round(r.heartbeat.everyMs / 1000)}s${r.heartbeat.paused ? ' (paused)' : ''}: ${r.heartbeat.prompt.slice(0, 60)}`);
        if (lines.length === 1) lines.push('  nothing else is running.');
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'goal',
      args: '[text | status | pause | resume | clear]',
      description: 'a standing goal: after each turn a judge decides whether it is met; if not, work continues',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['status', 'pause', 'resume', 'clear'],
      run(ctx, args) {
        const r = routinesOf(ctx.session);
        const a = args.trim();
        const g = r.goal;
        if (!a || a === 'status' || a === 'show') {
          if (!g) return { output: 'No goal. /goal <text> sets one: Hermes keeps working, turn after turn, until a judge says it is met (budget 20 turns).' };
          return { output: `Goal (${g.status}, ${g.turns}/${g.budget} turns): ${g.text}${g.subgoals.length ? `\n${g.subgoals.map((x, i) => `  ${i + 1}. ${x}`).join('\n')}` : ''}${g.last ? `\nLast verdict: ${g.last}` : ''}` };
        }
        if (a === 'pause' || a === 'resume') {
          if (!g) return { output: 'No goal to ' + a + '.' };
          g.status = a === 'pause' ? 'paused' : 'active';
          if (a === 'resume' && g.turns >= g.budget) g.budget = g.turns + 20;
          return { output: `Goal ${a === 'pause' ? 'paused' : 'resumed'}.` };
        }
        if (a === 'clear') {
          r.goal = null;
          return { output: 'Goal cleared.' };
        }
        r.setGoal(a);
        if (ctx.session.busy) return { output: `🎯 Goal set: ${a}. It is judged after the current turn.` };
        return { output: `🎯 Goal set: ${a}`, send: `[Standing goal — work until it is achieved: ${a}]` };
      },
    },
    {
      name: 'subgoal',
      args: '[text | remove N | clear]',
      description: 'extra criteria the active goal must also meet',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx, args) {
        const g = routinesOf(ctx.session).goal;
        if (!g) return { output: 'Set a goal first: /goal <text>.' };
        const a = args.trim();
        if (!a) return { output: g.subgoals.length ? g.subgoals.map((x, i) => `${i + 1}. ${x}`).join('\n') : 'No extra criteria. /subgoal <text> adds one.' };
        if (a === 'clear') {
          g.subgoals = [];
          return { output: 'Extra criteria cleared.' };
        }
        const rm = /^remove\s+(\d+)$/.exec(a);
        if (rm) {
          const i = Number(rm[1]) - 1;
          if (!g.subgoals[i]) return { output: `No criterion ${rm[1]}.` };
          g.subgoals.splice(i, 1);
          return { output: 'Removed.' };
        }
        g.subgoals.push(a);
        return { output: `Added criterion ${g.subgoals.length}: ${a}` };
      },
    },
    {
      name: 'heartbeat',
      aliases: ['hb'],
      args: '[every <interval> <prompt> | status | pause | resume | clear]',
      description: 'a recurring prompt that re-enters this session when it is idle (at least every 60s)',
      category: 'session',
      surfaces: ['cli', 'gateway'],
      midTurn: true,
      completions: ['every', 'status', 'pause', 'resume', 'clear'],
      run(ctx, args) {
        const r = routinesOf(ctx.session);
        const a = args.trim();
        const hb = r.heartbeat;
        if (!a || a === 'status') return { output: hb ? `Heartbeat every ${Math.round(hb.everyMs / 1000)}s${hb.paused ? ' (paused)' : ''}, fired ${hb.fired} time(s): ${hb.prompt}` : 'No heartbeat. /heartbeat every 10m <prompt> sets one.' };
        if (a === 'pause' || a === 'resume') {
          if (!hb) return { output: 'No heartbeat.' };
          hb.paused = a === 'pause';
          return { output: `Heartbeat ${a === 'pause' ? 'paused' : 'resumed'}.` };
        }
        if (a === 'clear' || a === 'stop') {
          r.stopHeartbeat();
          return { output: 'Heartbeat cleared.' };
        }
        const m = /^every\s+(\S+)\s+([\s\S]+)$/.exec(a);
        if (!m) return { output: 'Usage: /heartbeat every <interval> <prompt> (interval like 90s, 10m, 2h)' };
        const ms = parseInterval(m[1]);
        if (ms === null) return { output: `"${m[1]}" is not an interval: use 90s, 10m, 2h or 1d.` };
        if (ms < 60_000) return { output: 'The shortest heartbeat is 60s.' };
        r.startHeartbeat(ms, m[2].trim());
        return { output: `💓 Heartbeat every ${m[1]}: “${m[2].trim()}” (runs when the session is idle).` };
      },
    },
    {
      name: 'refine',
      args: '[focus]',
      description: 'review this conversation now and save lessons to memory and skills',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        const s = ctx.session;
        if (s.history.length < 2) return { output: 'Nothing to review yet.' };
        const snapshot = [...s.history];
        if (args.trim()) snapshot.push({ role: 'user', content: `(Focus the review on: ${args.trim()})` }, { role: 'assistant', content: 'Understood.' });
        const changes = await s.review(snapshot, { memory: true, skills: true });
        return { output: changes.length ? `Saved:\n${changes.map((c) => `  • ${c}`).join('\n')}` : 'Reviewed: nothing worth saving this time.' };
      },
    },
    {
      name: 'review',
      args: '[instructions]',
      description: 'have an independent subagent review the work just discussed',
      category: 'session',
      surfaces: ALL_SURFACES,
      run(_ctx, args) {
        return {
          send:
            'Use delegate_task to spawn one independent reviewer subagent. Give it the context it needs (files, diffs, the goal) — it cannot see this conversation. ' +
            `Ask it to review the work we just did critically: correctness, edge cases, tests, security, clarity.${args.trim() ? ` Reviewer instructions: ${args.trim()}` : ''} ` +
            'Then report its findings to me, noting which ones you agree with.',
        };
      },
    },
    {
      name: 'plan',
      args: '[task]',
      description: 'write a Markdown implementation plan to .hermes/plans/ without changing anything else',
      category: 'session',
      surfaces: ALL_SURFACES,
      run(ctx, args) {
        const task = args.trim() || 'the task we have been discussing';
        const file = planName(args.trim() || 'plan');
        return {
          send:
            `Planning only: write an implementation plan for ${task} to ${file} (relative to ${ctx.session.services.cwd}). ` +
            'Read what you need first. Do not change any other file and do not run commands that modify anything. ' +
            'The plan: goal, context found, steps (with files), risks, how to verify. Then tell me where it is.',
        };
      },
    },
    {
      name: 'init',
      args: '[notes]',
      description: 'scan the repository and write or update AGENTS.md project instructions',
      category: 'tools',
      surfaces: ALL_SURFACES,
      run(_ctx, args) {
        return {
          send:
            'Scan this repository (layout, languages, build/test commands, conventions, CI) and write AGENTS.md at its root with concise instructions for AI coding agents: ' +
            'how to build, test and lint; the structure; conventions to keep; pitfalls. If AGENTS.md exists, update it and keep what is still true.' +
            (args.trim() ? ` Also: ${args.trim()}` : ''),
        };
      },
    },
    {
      name: 'learn',
      args: '<what to learn from>',
      description: 'turn something (a folder, a URL, this chat, notes) into a reusable skill',
      category: 'tools',
      surfaces: ALL_SURFACES,
      run(_ctx, args) {
        if (!args.trim()) return { output: 'Usage: /learn <what to learn from> (a folder, a URL, “this conversation”, notes…)' };
        return {
          send: `Learn a reusable skill from: ${args.trim()}. Study it, then create the skill with skill_manage (a SKILL.md with a clear name, description and steps; supporting files if useful). Tell me the skill's name when done.`,
        };
      },
    },
  ];
}
