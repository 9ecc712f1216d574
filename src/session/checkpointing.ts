// Checkpoints before destructive edits (`checkpoints.enabled` / `--checkpoints`): before write_file,
// patch or a terminal command that changes files, the working directory is snapshotted into the
// shadow store (src/state/checkpoints.ts), at most once per directory per turn. The model never
// sees any of this; /rollback restores.
import { resolve } from 'node:path';
import type { AgentTool } from '../agent/types.ts';
import type { HermesConfig } from '../state/defaults.ts';
import { CheckpointStore, isDestructiveCommand } from '../state/checkpoints.ts';

export interface CheckpointConfig {
  enabled?: boolean;
  max_snapshots?: number;
  max_total_size_mb?: number;
  max_file_size_mb?: number;
}

export function checkpointConfig(config: HermesConfig): CheckpointConfig {
  const c = config.checkpoints;
  if (typeof c === 'boolean') return { enabled: c };
  return c && typeof c === 'object' ? c : {};
}

export function storeFor(home: string, config: HermesConfig): CheckpointStore {
  const c = checkpointConfig(config);
  const n = (v: unknown, d: number) => (Number.isFinite(Number(v)) ? Number(v) : d);
  return new CheckpointStore(home, { maxSnapshots: n(c.max_snapshots, 20), maxTotalSizeMb: n(c.max_total_size_mb, 500), maxFileSizeMb: n(c.max_file_size_mb, 10) });
}

export class Checkpointer {
  readonly store: CheckpointStore;
  private done = new Set<string>();
  private available: boolean | null = null;

  constructor(store: CheckpointStore) {
    this.store = store;
  }

  /** A new turn: each directory may be snapshotted once again. */
  newTurn(): void {
    this.done.clear();
  }

  private ensure(dir: string, reason: string): void {
    if (this.available === null) this.available = CheckpointStore.gitAvailable();
    if (!this.available) return;
    const d = resolve(dir);
    if (this.done.has(d)) return;
    this.done.add(d);
    try {
      this.store.take(d, reason);
    } catch {
      /* never in the way of the tool */
    }
  }

  /** Before a tool runs. */
  before(tool: string, args: Record<string, unknown>, cwd: string): void {
    if ((tool === 'write_file' || tool === 'patch') && typeof args.path === 'string') {
      this.ensure(this.store.workdirFor(resolve(cwd, args.path)), `before ${tool}`);
    } else if (tool === 'terminal' && typeof args.command === 'string' && isDestructiveCommand(args.command)) {
      const where = typeof args.workdir === 'string' ? resolve(cwd, args.workdir) : cwd;
      this.ensure(this.store.workdirFor(where), `before terminal: ${args.command.replace(/\s+/g, ' ').slice(0, 60)}`);
    }
  }

  /** After a tool succeeded: what Hermes wrote goes into the ledger (safe restores keep later hand-edits). */
  after(tool: string, args: Record<string, unknown>, cwd: string): void {
    if ((tool === 'write_file' || tool === 'patch') && typeof args.path === 'string') {
      try {
        this.store.recordWrite(resolve(cwd, args.path));
      } catch {
        /* best effort */
      }
    }
  }
}

export function withCheckpoints(tool: AgentTool, cp: () => Checkpointer | null, cwd: () => string): AgentTool {
  if (tool.name !== 'write_file' && tool.name !== 'patch' && tool.name !== 'terminal') return tool;
  return {
    ...tool,
    async execute(args, ctx) {
      const c = cp();
      c?.before(tool.name, args, cwd());
      const out = await tool.execute(args, ctx);
      if (c && !out.isError) c.after(tool.name, args, cwd());
      return out;
    },
  };
}
