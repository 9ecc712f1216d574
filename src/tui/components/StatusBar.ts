// The status bar at the bottom: model, provider and runtime; how full the context is; tokens and cost
// so far; what the agent is doing (or ready); YOLO and the busy-input mode when they matter.

import { createElement as h, type ReactElement } from 'react';
import { estimateMessagesTokens, estimateTextTokens } from '../../agent/tokens.ts';
import { formatUsd } from '../../cli/repl/driver.ts';
import { stringWidth, truncateAnsi } from '../../cli/repl/width.ts';
import { contextLengthFor } from '../../llm/index.ts';
import { promptTokens } from '../../llm/types.ts';
import { describeToolCall, runningLine } from '../../session/describe.ts';
import type { TuiController } from '../controller.ts';
import { SPINNER } from '../transcript.ts';
import { Lines } from './Lines.ts';

const compact = (n: number) => (n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k` : `${(n / 1_000_000).toFixed(1)}M`);

let estimated = { key: '', tokens: 0 };

/** Tokens the next request starts with: the last request's prompt, or an estimate (a resumed session). */
function contextTokens(c: TuiController): number {
  if (c.lastPromptTokens) return c.lastPromptTokens;
  const s = c.session;
  const key = `${s.id}:${s.history.length}:${s.system.length}`;
  if (estimated.key !== key) estimated = { key, tokens: estimateMessagesTokens(s.history) + estimateTextTokens(s.system) };
  return estimated.tokens;
}

/** What the agent is doing, for the right end of the bar. */
export function busyLabel(c: TuiController): string {
  const s = c.style;
  const d = c.driver;
  if (c.requests.length) return `${s.yellow('◆')} waiting for your answer`;
  if (d.phase === 'idle') return `${s.green('●')} ready`;
  const elapsed = d.phaseStarted ? ` ${((c.now() - d.phaseStarted) / 1000).toFixed(1)}s` : '';
  const tool = d.phase === 'turn' ? c.runningTool : null;
  // A running tool is named with its main argument (as its transcript line), not a thinking verb.
  const what = tool
    ? `${runningLine(describeToolCall(tool.name, tool.args, { emoji: tool.emoji, argMax: 40 }))}${tool.others ? ` (+${tool.others} more)` : ''}`
    : d.phase === 'turn'
      ? c.writing
        ? 'writing'
        : c.verb
      : d.phaseLabel || 'working';
  return `${s.cyan(SPINNER[c.tick % SPINNER.length])} ${what}${elapsed}`;
}

export function statusLine(c: TuiController, width: number): string {
  const s = c.style;
  const ses = c.session;
  const rt = ses.runtime;
  const window = contextLengthFor(rt.model, rt.contextLength ?? ses.settings.config.model.context_length ?? undefined);
  const used = contextTokens(c);
  const pct = Math.min(999, Math.round((used / window) * 100));
  const t = ses.totals;
  const tokens = promptTokens(t.usage) + t.usage.output_tokens + promptTokens(c.turnUsage) + c.turnUsage.output_tokens;
  const cost = t.costUsd === null && c.turnCost === null ? null : (t.costUsd ?? 0) + (c.turnCost ?? 0);
  const ctx = `ctx ${pct}%`;
  // [text, priority]: on a narrow terminal the least important parts go first.
  const parts: [string, number][] = [
    [`${s.gold('⚕')} ${s.bold(rt.model)}`, 0],
    [s.dim(`${rt.provider} · ${ses.runnerKind === 'codex_app_server' ? 'codex app-server' : rt.apiMode}`), 6],
    [pct >= 80 ? s.red(ctx) : pct >= 50 ? s.yellow(ctx) : s.dim(ctx), 2],
    [s.dim(`${compact(tokens)} tok`), 4],
    [s.dim(cost === null ? '$—' : formatUsd(cost)), 3],
  ];
  if (ses.services.yolo) parts.push([s.yellow('⚠ YOLO'), 1]);
  if (ses.prefs.busyInputMode !== 'interrupt') parts.push([s.dim(`busy: ${ses.prefs.busyInputMode}`), 5]);
  if (c.scrollTop !== null) parts.push([s.yellow('↑ scrolled'), 1]);
  const right = busyLabel(c);
  const room = width - stringWidth(right) - 2;
  const sep = s.dim(' │ ');
  let kept = parts;
  let left = kept.map((p) => p[0]).join(sep);
  for (let drop = 6; drop > 0 && stringWidth(left) > room; drop--) {
    kept = kept.filter((p) => p[1] < drop);
    left = kept.map((p) => p[0]).join(sep);
  }
  const l = truncateAnsi(left, Math.max(0, room));
  return `${l}${' '.repeat(Math.max(1, width - stringWidth(l) - stringWidth(right)))}${right}`;
}

export function StatusBar({ line }: { line: string }): ReactElement {
  return h(Lines, { lines: [line], height: 1 });
}
