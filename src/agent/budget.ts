/** Iterations (API calls that may run tools) a loop may spend. `null` max = unlimited. */
export class IterationBudget {
  private spent = 0;
  readonly max: number | null;
  constructor(max: number | null) {
    this.max = max;
  }

  get used(): number {
    return this.spent;
  }

  get remaining(): number {
    return this.max === null ? Number.POSITIVE_INFINITY : Math.max(0, this.max - this.spent);
  }

  /** Takes one iteration; false when the budget is spent. */
  consume(): boolean {
    if (this.max !== null && this.spent >= this.max) return false;
    this.spent++;
    return true;
  }

  /** Gives iterations back (execute_code's inner calls do not cost the parent). */
  refund(n = 1): void {
    this.spent = Math.max(0, this.spent - n);
  }
}

/** Reads `agent.max_turns` / HERMES_MAX_ITERATIONS style values: 0, -1, 'none', 'unlimited', null → unlimited. */
export function parseMaxTurns(v: unknown, fallback: number | null = 90): number | null {
  if (v === null) return null;
  if (v === undefined || v === '') return fallback;
  if (typeof v === 'string' && ['none', 'unlimited', 'inf'].includes(v.trim().toLowerCase())) return null;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) return fallback;
  return n <= 0 ? null : Math.floor(n);
}
