// HERMES_HOME/local_models.json: what each local endpoint serves, per endpoint and model (the probe
// in src/llm/local/), and the tool-calling self-test's verdict (`hermes doctor --model`). Read by
// sessions (the window before the first request), `hermes status` and the dashboard.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedModel } from '../llm/local/types.ts';
import { writeFileAtomic } from './fsutil.ts';

export type SelfTestVerdict = 'native' | 'text' | 'failing';

export interface SelfTestRecord {
  verdict: SelfTestVerdict;
  /** Cases passed natively, as text, and failed. */
  native: number;
  text: number;
  failed: number;
  total: number;
  /** The text format the model used, when it wrote calls as text. */
  parser?: string;
  /** Unix ms. */
  at: number;
}

export interface LocalModelRecord extends Partial<ServedModel> {
  baseUrl: string;
  model: string;
  selftest?: SelfTestRecord;
}

const FILE = 'local_models.json';

export const localModelKey = (baseUrl: string, model: string) => `${baseUrl.replace(/\/+$/, '')}|${model}`;

export function readLocalModels(home: string): Record<string, LocalModelRecord> {
  try {
    const v = JSON.parse(readFileSync(join(home, FILE), 'utf8')) as { endpoints?: unknown };
    return v && typeof v.endpoints === 'object' && v.endpoints ? (v.endpoints as Record<string, LocalModelRecord>) : {};
  } catch {
    return {};
  }
}

export function readLocalModel(home: string, baseUrl: string, model: string): LocalModelRecord | undefined {
  return readLocalModels(home)[localModelKey(baseUrl, model)];
}

/** Merges `patch` into the record of baseUrl+model (a read-only home keeps nothing; never throws). */
export function writeLocalModel(home: string, baseUrl: string, model: string, patch: Partial<LocalModelRecord>): LocalModelRecord {
  const all = readLocalModels(home);
  const key = localModelKey(baseUrl, model);
  const rec: LocalModelRecord = { ...all[key], ...patch, baseUrl: baseUrl.replace(/\/+$/, ''), model };
  all[key] = rec;
  try {
    writeFileAtomic(join(home, FILE), `${JSON.stringify({ version: 1, endpoints: all }, null, 2)}\n`, 0o600);
  } catch {
    /* read-only home */
  }
  return rec;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** One line for `hermes status` and the dashboard: server, model, window, capabilities, self-test. */
export function localModelLine(r: LocalModelRecord): string {
  const caps = Object.entries(r.capabilities ?? {})
    .filter(([, v]) => v)
    .map(([k]) => k);
  const window = r.window ? `window ${fmt(r.window)}${r.maxWindow && r.maxWindow !== r.window ? ` (max ${fmt(r.maxWindow)})` : ''}` : r.maxWindow ? `max window ${fmt(r.maxWindow)} (served window known once loaded)` : 'window not reported';
  const t = r.selftest;
  const test = t ? `self-test: ${t.verdict}${t.verdict === 'text' && t.parser ? ` (${t.parser})` : ''}, ${t.total - t.failed}/${t.total} passed` : 'self-test: not run (hermes doctor --model)';
  return `${r.kind ?? 'server'} · ${r.model} · ${window}${caps.length ? ` · ${caps.join(', ')}` : ''} · ${test}`;
}

/** The records as `hermes status --json` and `/api/status` give them. */
export function localModelsJson(home: string) {
  return Object.values(readLocalModels(home)).map((r) => ({
    kind: r.kind ?? null,
    base_url: r.baseUrl,
    model: r.model,
    window: r.window ?? null,
    max_window: r.maxWindow ?? null,
    capabilities: r.capabilities ?? {},
    selftest: r.selftest ? { verdict: r.selftest.verdict, passed: r.selftest.total - r.selftest.failed, total: r.selftest.total, parser: r.selftest.parser ?? null } : null,
    probed_at: r.probedAt ?? null,
    line: localModelLine(r),
  }));
}
