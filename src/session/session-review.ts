// The background self-review: every N user turns (memory.nudge_interval) or ~N tool-calling
// iterations (skills.creation_nudge_interval) a forked loop over a snapshot of the conversation,
// limited to the memory and skill tools, saves what is worth keeping.
import { IterationBudget } from '../agent/budget.ts';
import { guardrails } from '../agent/guardrails.ts';
import { runTurn } from '../agent/loop.ts';
import { spilling } from '../agent/spill.ts';
import { steering } from '../agent/steer.ts';
import { textCalls } from '../agent/textcalls/hook.ts';
import { RequestBroker } from '../agent/requests.ts';
import type { ToolCallContext, TurnResult } from '../agent/types.ts';
import type { Message } from '../llm/types.ts';
import type { AuxModel, Spawn, StateHost } from './state-host.ts';

const REVIEW_MEMORY =
  'Look back over the conversation above and decide whether anything belongs in long-term memory: lasting facts about the user ' +
  '(preferences, role, habits, corrections they made) go to the "user" store; useful facts about their environment, projects and tools ' +
  'go to the "memory" store. Save only what will matter in future sessions and is not already in memory (update an entry rather than ' +
  'adding a near-duplicate).';

const REVIEW_SKILLS =
  'Also consider whether the conversation contained a reusable, non-trivial procedure: a task that took several steps or attempts, an ' +
  'error that was overcome, or an approach the user corrected. If so, create a skill with skill_manage, or patch an existing skill that ' +
  'proved wrong. Check skills_list first to avoid duplicates.';

const REVIEW_END = 'Do not address the user. Make the changes (or none), then reply with one short line saying what you changed, or "Nothing to save."';

export class BackgroundReview {
  private readonly host: StateHost;
  private readonly aux: (task: string) => AuxModel | null;
  private turnsSinceMemory = 0;
  private itersSinceSkill = 0;

  constructor(host: StateHost, aux: (task: string) => AuxModel | null) {
    this.host = host;
    this.aux = aux;
  }

  /** After a turn the background may follow up: counts, and starts a review when one is due. */
  afterTurn(result: TurnResult, spawn: Spawn): void {
    const o = this.host.options;
    // Background self-review: memory every N user turns, skills every ~N tool-calling iterations.
    const names = new Set(this.host.tools.map((t) => t.name));
    const memEvery = Number(o.config.memory?.nudge_interval ?? 10);
    const skillEvery = Number(o.config.skills?.creation_nudge_interval ?? 10);
    if (names.has('memory') && memEvery > 0) this.turnsSinceMemory++;
    if (names.has('skill_manage') && skillEvery > 0) this.itersSinceSkill += result.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
    const reviewMemory = names.has('memory') && memEvery > 0 && this.turnsSinceMemory >= memEvery;
    const reviewSkills = names.has('skill_manage') && skillEvery > 0 && this.itersSinceSkill >= skillEvery;
    if (result.completed && (reviewMemory || reviewSkills)) {
      if (reviewMemory) this.turnsSinceMemory = 0;
      if (reviewSkills) this.itersSinceSkill = 0;
      // The review works on the history as it is now: a copy of the list (the session goes on
      // appending to, compressing or rewinding its own). History messages are not edited in place
      // once appended, so they are shared, not deep-cloned: a clone of every message every N turns
      // of every chat, kept by the review's request cache until the next review, was garbage the
      // gateway promoted to its old generation (more major GCs).
      const snapshot = this.host.history.slice();
      spawn(() => this.review(snapshot, reviewMemory, reviewSkills));
    }
  }

  /** A forked loop over a snapshot of the conversation, limited to memory and skill tools. */
  async review(snapshot: Message[], memory: boolean, skills: boolean): Promise<string[]> {
    const allowed = new Set([...(memory ? ['memory'] : []), ...(skills ? ['skills_list', 'skill_view', 'skill_manage'] : [])]);
    const tools = this.host.tools.filter((t) => allowed.has(t.name)).map((t) => ({ ...t, execute: (args: Record<string, unknown>, ctx: ToolCallContext) => t.execute(args, { ...ctx, caller: 'background_review' as const }) }));
    if (!tools.length) return [];
    const aux = this.aux('background_review');
    const stream = aux?.stream ?? this.host.llm.stream;
    const reviewModel = aux?.model ?? this.host.llm.active.model;
    const changes: string[] = [];
    const prompt = [memory ? REVIEW_MEMORY : '', skills ? REVIEW_SKILLS : '', REVIEW_END].filter(Boolean).join('\n\n');
    await runTurn(
      { role: 'user', content: prompt },
      {
        history: snapshot,
        system: this.host.system,
        tools,
        stream,
        model: () => reviewModel,
        broker: new RequestBroker(() => {}, { interactive: false, timeoutMs: 1000 }),
        budget: new IterationBudget(8),
        hooks: [textCalls(), guardrails(), spilling(), steering()],
        emit: (e) => {
          if (e.type !== 'tool_end' || e.isError) return;
          const d = e.display as { kind?: string; action?: string; target?: string; name?: string; message?: string } | undefined;
          if (d?.kind === 'memory') changes.push(`${d.target === 'user' ? 'user profile' : 'memory'} ${d.action === 'add' ? '+1 entry' : d.action === 'remove' ? '−1 entry' : d.action === 'batch' ? String(d.message ?? 'updated').replace(/\.$/, '').toLowerCase() : 'entry updated'}`);
          else if (d?.kind === 'skill') changes.push(`skill ${d.name} ${d.action === 'create' ? 'created' : d.action === 'delete' ? 'deleted' : 'updated'}`);
        },
      },
    );
    const mode = this.host.options.config.display?.memory_notifications ?? 'on';
    if (changes.length && mode !== 'off') this.host.emit({ type: 'notice', message: `${changes.some((c) => c.startsWith('skill')) && !changes.some((c) => !c.startsWith('skill')) ? '🛠️' : '💾'} Learned from this session: ${changes.join('; ')}` });
    return changes;
  }

  /** /new: the counts start again. */
  reset(): void {
    this.turnsSinceMemory = 0;
    this.itersSinceSkill = 0;
  }
}
