// Prompt building: the parts of the system prompt that come from HERMES_HOME and the project
// (SOUL.md, tool guidance, the memory snapshot, the skills index, project context, environment).
import type { PromptParts } from '../agent/prompt.ts';
import type { AgentTool } from '../agent/types.ts';
import { buildProjectContext, findProjectContext, loadSoul, ruleFileNames } from '../state/context-files.ts';
import type { MemoryManager } from '../state/memory-provider.ts';
import { paths } from '../state/paths.ts';
import { buildSkillsIndex, disabledSkillNames, discoverSkills, skillApplies, type Skill } from '../state/skills.ts';
import { behaviourGuidance, environmentLines, profileLine } from './prompt-guidance.ts';
import type { StateHost } from './state-host.ts';

export const MEMORY_GUIDANCE = 'Memory is loaded every session: keep it to short lasting facts; no task progress or secrets.';

export const SESSION_SEARCH_GUIDANCE = 'For earlier work, try session_search before saying you do not know.';

// The last sentence is Hermes's skill safety rule: compaction clears old tool output, skill_view's too.
export const SKILLS_GUIDANCE =
  'After a complex task or tricky fix, save the procedure as a skill (skill_manage); patch skills you find wrong; reload ' +
  'one whose skill_view output was cleared.';

export const KANBAN_WORKER_GUIDANCE =
  '# Kanban task\n' +
  'You were started by the kanban dispatcher to do ONE task from the shared board; its id is in $HERMES_KANBAN_TASK and your ' +
  'workspace (also your working directory) is $HERMES_KANBAN_WORKSPACE. Work headless: nobody is watching this session.\n' +
  '1. Call kanban_show first (no arguments): it returns the task, the results your parent tasks handed over, earlier attempts ' +
  'on this task and the comment thread.\n' +
  '2. Do the work inside the workspace. During a long operation call kanban_heartbeat every few minutes.\n' +
  '3. Finish with exactly one of: kanban_complete (summary: what you did, in 1-3 sentences; metadata: facts the next task ' +
  'needs) — kanban_block (reason: the question a person must answer; do not guess and do not call clarify) — or ' +
  'kanban_request_review when the work needs a reviewer. If you were handed the task to review it (a review_requested ' +
  'event), approve with kanban_complete or send it back with kanban_request_changes(reason).\n' +
  'Leave durable notes for other tasks with kanban_comment. Never mark done work you did not do; block instead.';

function isTruthy(v: string | undefined): boolean {
  return !!v && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

export class PromptBuilder {
  private readonly host: StateHost;
  private readonly memory: MemoryManager | null;
  /** The skills found when the prompt was last built. */
  skills: Skill[] = [];
  private built = false;

  constructor(host: StateHost, memory: MemoryManager | null) {
    this.host = host;
    this.memory = memory;
  }

  private get externalDirs(): string[] {
    const d = this.host.options.config.skills?.external_dirs;
    return Array.isArray(d) ? d : [];
  }

  get ignoreRules(): boolean {
    return !!this.host.options.ignoreRules || isTruthy(this.host.options.env.HERMES_IGNORE_RULES);
  }

  /** A warning: listed for the surface while the session is being set up, emitted afterwards. */
  warn(message: string): void {
    if (this.built) this.host.emit({ type: 'warning', message });
    else this.host.warnings.push(message);
  }

  /** The parts of the system prompt that come from HERMES_HOME and the project. */
  promptParts(tools: AgentTool[]): Partial<PromptParts> {
    const o = this.host.options;
    const names = new Set(tools.map((t) => t.name));
    const toolsets = new Set(tools.map((t) => t.toolset));
    const parts: Partial<PromptParts> = {};
    const rules = ruleFileNames(o.env);
    // --ignore-rules (and --safe-mode): no SOUL.md, memory or project rules, as in Hermes.
    const soul = rules.includes('SOUL.md') && !this.ignoreRules ? loadSoul(paths.soul(o.home)) : {};
    parts.identity = soul.identity;
    if (soul.blocked) this.warn(`SOUL.md was not loaded: it matched ${soul.blocked}. Using the default identity.`);
    const guidance: string[] = names.size ? behaviourGuidance(o.config.agent) : [];
    if (names.has('memory')) guidance.push(MEMORY_GUIDANCE);
    if (names.has('session_search')) guidance.push(SESSION_SEARCH_GUIDANCE);
    if (names.has('skill_manage')) guidance.push(SKILLS_GUIDANCE);
    if (names.has('kanban_complete')) guidance.push(KANBAN_WORKER_GUIDANCE);
    if (guidance.length) parts.toolGuidance = guidance;
    if (this.memory && !this.ignoreRules) {
      this.memory.builtin.freeze();
      parts.providerBlock = this.memory.systemPromptBlock();
      parts.memory = this.memory.builtin.snapshot.memory;
      parts.userProfile = this.memory.builtin.snapshot.user;
    }
    const off = disabledSkillNames(o.config, o.platform);
    this.skills = discoverSkills(o.home, this.externalDirs).filter((s) => !off.has(s.name));
    if (names.has('skill_view')) parts.skillsIndex = buildSkillsIndex(this.skills.filter((s) => skillApplies(s, { os: process.platform, toolsets, tools: names })));
    if (!this.ignoreRules && !o.ignoreProjectRules) {
      const files = findProjectContext(o.cwd, rules);
      for (const f of files) if (f.blocked) this.warn(`${f.name} was not loaded: it looks like a prompt injection (${f.blocked}).`);
      parts.projectContext = buildProjectContext(files);
    }
    if (o.passSessionId) parts.sessionId = this.host.id;
    parts.environment = environmentLines({ cwd: o.cwd, env: o.env, backend: o.config.terminal?.backend });
    parts.profile = profileLine(o.home, o.env);
    this.built = true;
    return parts;
  }
}
