// Typed per-session slots: what a session's tools (and the commands around them) keep for as long as
// the session lives — the todo list, the execution backend, approvals given, … — each behind a handle
// that carries its type, instead of string keys into an untyped map.

/** A handle on one per-session value. `init` makes the value on first use (see `Slots.get`). */
export interface Slot<T> {
  /** Unique across the program (the store is keyed by it); names the slot in errors. */
  readonly name: string;
  readonly init?: () => T;
}

/** A slot that makes its own first value. */
export interface InitSlot<T> extends Slot<T> {
  readonly init: () => T;
}

/**
 * Declares a slot, once, in the module that owns the value:
 * `const todoSlot = defineSlot('todo', (): TodoItem[] => [])` then `ctx.slot(todoSlot)`.
 */
export function defineSlot<T>(name: string, init: () => T): InitSlot<T>;
export function defineSlot<T>(name: string): Slot<T>;
export function defineSlot<T>(name: string, init?: () => T): Slot<T> {
  return init ? { name, init } : { name };
}

/** One session's slot values. */
export class Slots {
  private readonly values = new Map<string, unknown>();

  /** The slot's value, made by its `init` on first use. */
  get<T>(slot: InitSlot<T>): T {
    if (this.values.has(slot.name)) return this.values.get(slot.name) as T;
    const v = slot.init();
    this.values.set(slot.name, v);
    return v;
  }

  /** The slot's value, or undefined when it has none yet. */
  peek<T>(slot: Slot<T>): T | undefined {
    return this.values.get(slot.name) as T | undefined;
  }

  set<T>(slot: Slot<T>, value: T): void {
    this.values.set(slot.name, value);
  }

  delete(slot: Slot<unknown>): void {
    this.values.delete(slot.name);
  }
}
