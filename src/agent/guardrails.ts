// A pure controller that watches tool calls within a turn and flags loops, and its loop hook.
import type { LoopHook } from './hooks.ts';
import { fingerprint } from './repair.ts';

export interface GuardrailConfig {
  warnings_enabled: boolean;
  hard_stop_enabled: boolean;
  warn_after: { exact_failure: number; same_tool_failure: number; idempotent_no_progress: number };
  hard_stop_after: { exact_failure: number; same_tool_failure: number; idempotent_no_progress: number };
}

export const DEFAULT_GUARDRAILS: GuardrailConfig = {
  warnings_enabled: true,
  hard_stop_enabled: false,
  warn_after: { exact_failure: 2, same_tool_failure: 3, idempotent_no_progress: 2 },
  hard_stop_after: { exact_failure: 5, same_tool_failure: 8, idempotent_no_progress: 5 },
};

export interface GuardrailDecision {
  /** Text appended to the tool result so the model sees it. */
  warning?: string;
  /** End the turn (only when hard stops are enabled). */
  stop?: string;
}

/** Tools that are expected to be called repeatedly with the same arguments (pollers). */
const POLLERS = new Set(['process', 'todo']);

export class ToolGuardrails {
  private exactFailures = new Map<string, number>();
  private toolFailures = new Map<string, number>();
  private sameResult = new Map<string, { result: string; count: number }>();

  private readonly cfg: GuardrailConfig;
  constructor(cfg: GuardrailConfig = DEFAULT_GUARDRAILS) {
    this.cfg = cfg;
  }

  /**
   * Records one finished call. `fingerprint` identifies name+args; `idempotent` marks read-only tools
   * whose identical repeated results mean no progress.
   */
  observe(name: string, fingerprint: string, isError: boolean, result: string, idempotent: boolean): GuardrailDecision {
    const c = this.cfg;
    const out: GuardrailDecision = {};
    const warn = (msg: string) => {
      if (c.warnings_enabled && !out.warning) out.warning = msg;
    };
    if (isError) {
      const exact = (this.exactFailures.get(fingerprint) ?? 0) + 1;
      this.exactFailures.set(fingerprint, exact);
      const same = (this.toolFailures.get(name) ?? 0) + 1;
      this.toolFailures.set(name, same);
      if (c.hard_stop_enabled && exact >= c.hard_stop_after.exact_failure)
        out.stop = `The same failing ${name} call was repeated ${exact} times.`;
      else if (c.hard_stop_enabled && same >= c.hard_stop_after.same_tool_failure)
        out.stop = `${name} failed ${same} times in this turn.`;
      if (exact >= c.warn_after.exact_failure)
        warn(`This exact call has now failed ${exact} times. Do not repeat it unchanged: read the error, change the arguments or try a different approach.`);
      else if (same >= c.warn_after.same_tool_failure)
        warn(`${name} has failed ${same} times in this turn. Step back and reconsider the approach before calling it again.`);
    } else {
      this.toolFailures.set(name, 0);
      if (idempotent && !POLLERS.has(name)) {
        const prev = this.sameResult.get(fingerprint);
        const count = prev && prev.result === result ? prev.count + 1 : 1;
        this.sameResult.set(fingerprint, { result, count });
        if (c.hard_stop_enabled && count >= c.hard_stop_after.idempotent_no_progress)
          out.stop = `${name} was called ${count} times with the same arguments and result.`;
        if (count >= c.warn_after.idempotent_no_progress)
          warn(`You already called ${name} with these exact arguments and got this same result. Use what you have instead of repeating the call.`);
      }
    }
    return out;
  }
}

/**
 * Guardrails as a loop hook: each result, as it becomes final, is observed (before other hooks cut
 * it: list this hook before spilling); a warning rides after the result, and a hard stop ends the
 * turn once the batch is in.
 */
export function guardrails(cfg: GuardrailConfig = DEFAULT_GUARDRAILS): LoopHook {
  let guard = new ToolGuardrails(cfg);
  let stop: string | undefined;
  return {
    turnStart() {
      guard = new ToolGuardrails(cfg);
      stop = undefined;
    },
    finaliseResult(run) {
      const name = run.call.function.name;
      const d = guard.observe(name, fingerprint(name, run.args), !!run.outcome.isError, run.content, !!run.tool?.parallelSafe);
      if (d.stop) stop ??= d.stop;
      if (d.warning) run.suffix += `\n\n[Tool loop warning: ${d.warning}]`;
    },
    afterToolBatch() {
      const s = stop;
      stop = undefined;
      return s;
    },
  };
}
