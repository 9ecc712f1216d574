// A session's events as log records (HERMES_HOME/logs/agent.log, errors.log): tool calls, retries,
// fallbacks, approvals, warnings, errors and turn ends, tagged with the session id, under Hermes's
// logger names (`tools.<tool>`, `agent.loop`, `agent.client`, `tools.approval`). Deltas are not
// logged. The log redacts secrets (src/state/logs.ts).
import type { AgentEvent } from '../agent/types.ts';
import { hermesLog, logSettingsFrom, type HermesLog } from '../state/logs.ts';
import { formatDuration, toolDetail } from './activity.ts';

const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** The listener to add to a session; null when the home has no place for logs. */
export function sessionEventLogger(home: string, config: { logging?: Record<string, unknown> }, sessionId: () => string): ((e: AgentEvent) => void) | null {
  const log: HermesLog | null = hermesLog(home, logSettingsFrom(config as never));
  if (!log) return null;
  return (e) => {
    const sid = sessionId();
    switch (e.type) {
      case 'api_start':
        log.write('DEBUG', 'agent.loop', `API call ${e.iteration} to ${e.model}`, sid);
        break;
      case 'tool_start': {
        const detail = toolDetail(e.name, e.args, 200);
        log.write('INFO', `tools.${e.name}`, `${e.name} started${detail ? `: ${detail}` : ''}`, sid);
        break;
      }
      case 'tool_end':
        if (e.isError) log.write('WARNING', `tools.${e.name}`, `${e.name} failed after ${formatDuration(e.durationMs)}: ${oneLine(e.content, 300)}`, sid);
        else log.write('INFO', `tools.${e.name}`, `${e.name} finished in ${formatDuration(e.durationMs)}`, sid);
        break;
      case 'retry':
        log.write('WARNING', 'agent.client', `${e.error.provider}: ${oneLine(e.error.message, 300)} (retry ${e.attempt}/${e.maxAttempts} in ${(e.delayMs / 1000).toFixed(1)}s)`, sid);
        break;
      case 'retract':
        log.write('WARNING', 'agent.client', `${e.error.provider}: ${oneLine(e.error.message, 300)} after the answer had begun; the partial answer is withdrawn`, sid);
        break;
      case 'fallback':
        log.write('WARNING', 'agent.client', `switching from ${e.from} to fallback ${e.to}: ${e.reason}`, sid);
        break;
      case 'key_rotated':
        log.write('INFO', 'agent.credential_pool', `${e.provider}: next API key (${e.reason})`, sid);
        break;
      case 'request':
        if (e.request.kind === 'approval') log.write('INFO', 'tools.approval', `approval requested: ${oneLine(e.request.command, 300)} (${e.request.description})`, sid);
        else log.write('INFO', 'tools.approval', `${e.request.kind} requested`, sid);
        break;
      case 'request_resolved':
        log.write('INFO', 'tools.approval', `request answered: ${typeof e.answer === 'string' ? oneLine(e.answer, 80) : JSON.stringify(e.answer)} (${e.source})`, sid);
        break;
      case 'warning':
        log.write('WARNING', 'agent.session', oneLine(e.message, 500), sid);
        break;
      case 'error':
        log.write('ERROR', 'agent.loop', oneLine(e.error.message, 500), sid);
        break;
      case 'turn_end': {
        const r = e.result;
        const how = r.failed ? 'failed' : r.interrupted ? 'interrupted' : r.partial ? 'stopped at the iteration limit' : 'completed';
        const cost = r.costUsd ? `, $${r.costUsd.toFixed(4)}` : '';
        log.write(r.failed ? 'ERROR' : 'INFO', 'agent.loop', `turn ${how}: ${r.apiCalls} API call(s), ${r.usage.input_tokens} in / ${r.usage.output_tokens} out tokens${cost}`, sid);
        break;
      }
    }
  };
}
