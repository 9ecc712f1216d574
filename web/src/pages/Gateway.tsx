// Gateway: running or not, each platform's connection, start/stop, and pairing: people who asked
// to talk to the bot are approved with the code they received (as `hermes pairing approve`).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, post, when } from '../api.ts';
import { Badge, Empty, ErrorBox, failText, Loading, useToast } from '../ui.tsx';
import type { GatewayResponse } from '../../../src/dashboard/api-types.ts';

export default function Gateway() {
  const toast = useToast();
  const qc = useQueryClient();
  const data = useQuery({ queryKey: ['gateway'], queryFn: () => api<GatewayResponse>('/api/gateway'), refetchInterval: 5000 });
  const [codes, setCodes] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const act = async (fn: () => Promise<unknown>, ok: string) => {
    setBusy(true);
    try {
      await fn();
      toast(ok);
    } catch (e) {
      toast(failText(e), 'error');
    } finally {
      setBusy(false);
      qc.invalidateQueries({ queryKey: ['gateway'] });
      qc.invalidateQueries({ queryKey: ['status'] });
    }
  };
  if (data.isLoading) return <Loading what="the gateway" />;
  if (data.isError) return <ErrorBox error={data.error} retry={() => data.refetch()} />;
  const g = data.data!;
  return (
    <div className="stack">
      <h1>Gateway</h1>
      <div className="card row between wrap">
        <div>
          <span className={`dot ${g.running ? 'on' : 'off'}`} /> <strong>{g.running ? 'Running' : 'Not running'}</strong>
          {g.running && <span className="muted small"> · pid {g.pid} · since {g.startedAt}</span>}
          <div className="muted small">Log: {g.logPath}</div>
        </div>
        {g.running ? (
          <button className="btn danger" disabled={busy} onClick={() => act(() => post('/api/gateway/stop'), 'The gateway stopped.')}>
            Stop
          </button>
        ) : (
          <button className="btn primary" disabled={busy} onClick={() => act(() => post('/api/gateway/start'), 'The gateway started.')}>
            {busy ? 'Starting…' : 'Start in the background'}
          </button>
        )}
      </div>
      <h2>Platforms</h2>
      {!g.enabled.length ? (
        <Empty title="No messaging platform is set up.">Add a bot token (e.g. TELEGRAM_BOT_TOKEN) under Config → Keys, or run <code>hermes gateway setup</code>.</Empty>
      ) : (
        <table className="table">
          <tbody>
            {g.enabled.map((p) => (
              <tr key={p.id}>
                <td>{p.label}</td>
                <td>
                  <Badge kind={p.state === 'connected' ? 'ok' : p.state === 'stopped' ? '' : 'warn'}>{p.state}</Badge>
                </td>
                <td className="muted small">
                  {p.detail?.last_error ?? ''}
                  {p.detail?.next_retry_at ? ` (next try ${p.detail.next_retry_at})` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {g.ledger && (
        <>
          <h2>Messages (7 days)</h2>
          <div className="card row wrap">
            <span>
              <strong>{g.ledger.received}</strong> received
            </span>
            <span>
              <strong>{g.ledger.answered}</strong> answered
            </span>
            <span>
              <strong>{g.ledger.pending}</strong> pending
            </span>
            <span title="answered automatically after a restart or failover">
              <strong>{g.ledger.replayed}</strong> replayed
            </span>
            <span title="the person was asked to send it again">
              <strong>{g.ledger.givenUp}</strong> given up
            </span>
          </div>
        </>
      )}
      <h2>Pairing requests</h2>
      {!g.pending.length ? (
        <Empty title="Nobody is waiting.">When a stranger messages the bot they get a code; approve them here with it.</Empty>
      ) : (
        <table className="table">
          <tbody>
            {g.pending.map((p) => (
              <tr key={p.request_id}>
                <td>{p.platform}</td>
                <td>
                  {p.user_name || p.user_id} <span className="muted small">{p.user_id}</span>
                </td>
                <td className="muted small">{p.age_minutes} min ago</td>
                <td>
                  <form className="row" onSubmit={(e) => (e.preventDefault(), void act(() => post('/api/pairing/approve', { platform: p.platform, code: codes[p.request_id] ?? '' }), `Approved ${p.user_name || p.user_id}.`))}>
                    <input placeholder="code they received" value={codes[p.request_id] ?? ''} onChange={(e) => setCodes({ ...codes, [p.request_id]: e.target.value.toUpperCase() })} aria-label="Pairing code" />
                    <button className="btn small primary" disabled={!codes[p.request_id]}>
                      Approve
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {g.pending.length > 0 && (
        <button className="btn small" onClick={() => act(() => post('/api/pairing/clear'), 'Cleared the pending requests.')}>
          Clear all pending
        </button>
      )}
      <h2>Approved users</h2>
      {!g.approved.length ? (
        <Empty title="No approved users yet." />
      ) : (
        <table className="table">
          <tbody>
            {g.approved.map((a) => (
              <tr key={`${a.platform}:${a.user_id}`}>
                <td>{a.platform}</td>
                <td>
                  {a.user_name || a.user_id} <span className="muted small">{a.user_id}</span>
                </td>
                <td className="muted small">since {when(a.approved_at)}</td>
                <td>
                  <button className="btn small danger" onClick={() => act(() => post('/api/pairing/revoke', { platform: a.platform, user_id: a.user_id }), `Revoked ${a.user_id}.`)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
