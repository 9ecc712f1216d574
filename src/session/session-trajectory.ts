// Trajectories (config.yaml save_trajectories): each turn's conversation in ShareGPT form, appended
// to trajectory_samples.jsonl (completed) or failed_trajectories.jsonl in the working directory.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { toShareGpt, type TrajectoryEntry } from '../agent/trajectory.ts';
import type { TurnResult } from '../agent/types.ts';
import type { StateHost } from './state-host.ts';

export function saveTrajectory(host: StateHost, result: TurnResult): void {
  const o = host.options;
  const entry: TrajectoryEntry = {
    conversations: toShareGpt(host.history, host.tools.map((t) => t.schema)),
    timestamp: new Date().toISOString(),
    model: host.llm.active.model,
    completed: result.completed,
  };
  try {
    appendFileSync(join(o.cwd, result.completed ? 'trajectory_samples.jsonl' : 'failed_trajectories.jsonl'), `${JSON.stringify(entry)}\n`);
  } catch (e) {
    host.emit({ type: 'warning', message: `Could not save the trajectory: ${(e as Error).message}` });
  }
}
