// Status: what is set up and what is running, with the next step when something is missing.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ago, api, type Status } from '../api.ts';
import { Badge, Empty, Loading } from '../ui.tsx';
import type { SessionListResponse } from '../../../src/dashboard/api-types.ts';

export function Overview({ status, loading }: { status: Status | undefined; loading: boolean }) {
  const recent = useQuery({ queryKey: ['sessions', 'recent'], queryFn: () => api<SessionListResponse>('/api/sessions?limit=8') });
  if (loading || !status) return <Loading what="status" />;
  return (
    <div className="stack">
      <h1>Status</h1>
      {status.modelProblem && (
        <div className="state warn">
          <strong>No model is ready.</strong>
          <div className="fix">
            {status.modelProblem} <Link href="/config">Set up a provider and key →</Link>
          </div>
        </div>
      )}
      {status.configProblem && <div className="state warn">{status.configProblem}</div>}
      {status.problems.map((p) => (
        <div key={p} className="state warn">
          {p}
        </div>
      ))}
      <div className="cards">
        <div className="card stat">
          <div className="label">Model</div>
          <div className="value">{status.model ? status.model.model : '—'}</div>
          <div className="muted small">{status.model ? status.model.provider : 'not set up'}</div>
        </div>
        <div className="card stat">
          <div className="label">Sessions</div>
          <div className="value">{status.sessions.toLocaleString()}</div>
          <div className="muted small">{status.activeSessions} active in the last 5 min</div>
        </div>
        <div className="card stat">
          <div className="label">Gateway</div>
          <div className="value">{status.gateway.running ? 'running' : 'stopped'}</div>
          <div className="muted small">
            {status.gateway.running ? `pid ${status.gateway.pid}` : <Link href="/gateway">start it from the Gateway tab</Link>}
          </div>
        </div>
        <div className="card stat">
          <div className="label">Home</div>
          <div className="value small mono">{status.home}</div>
          <div className="muted small">Hermes {status.version}</div>
        </div>
      </div>
      {!!(status.spend && (status.spend.today.calls || status.spend.caps)) && (
        <>
          <h2>Spend today</h2>
          <ul className="list">
            <li className="small">
              ${status.spend.today.usd.toFixed(2)} · {status.spend.today.tokens.toLocaleString('en-US')} tokens · {status.spend.today.calls} model call(s) (<code>hermes cost why</code> says where it went)
            </li>
            {status.spend.lines.map((l) => (
              <li key={l} className={/\((8\d|9\d|\d{3,})%\)/.test(l) ? 'state warn' : 'small'}>
                {l}
              </li>
            ))}
          </ul>
        </>
      )}
      {!!status.providerHealth?.length && (
        <>
          <h2>Provider health</h2>
          <ul className="list">
            {status.providerHealth.map((h) => (
              <li key={`${h.provider}:${h.model}`} className={h.state === 'tripped' ? 'state warn' : 'small'}>
                {h.line}
              </li>
            ))}
          </ul>
        </>
      )}
      {!!status.localModels?.length && (
        <>
          <h2>Local models</h2>
          <ul className="list">
            {status.localModels.map((m) => (
              <li key={`${m.base_url}|${m.model}`} className={m.selftest?.verdict === 'failing' ? 'state warn' : 'small'}>
                {m.line} <span className="muted mono">{m.base_url}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Recent sessions</h2>
      {recent.isLoading ? (
        <Loading what="sessions" />
      ) : !recent.data?.sessions.length ? (
        <Empty title="No conversations yet.">
          Start one in <Link href="/chat">Chat</Link>, or run <code>hermes</code> in a terminal.
        </Empty>
      ) : (
        <ul className="list">
          {recent.data.sessions.map((s) => (
            <li key={s.id}>
              <Link href={`/sessions/${s.id}`} className="row between">
                <span className="ellipsis">{s.title || s.preview || s.id}</span>
                <span className="muted small">
                  <Badge>{s.source}</Badge> {s.message_count} msgs · {ago(s.last_active)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
