// Logs: the tail of ~/.hermes/logs/*.log with level, component, session and time filters; "Live"
// keeps polling for new lines from where the last read ended.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../api.ts';
import { Empty, ErrorBox, Loading } from '../ui.tsx';
import type { LogFilesResponse, LogPage } from '../../../src/dashboard/api-types.ts';

const levelOf = (l: string) => /\s(DEBUG|INFO|WARNING|ERROR|CRITICAL)\s/.exec(l)?.[1]?.toLowerCase() ?? '';

export default function Logs() {
  const [file, setFile] = useState('agent');
  const [level, setLevel] = useState('');
  const [component, setComponent] = useState('');
  const [session, setSession] = useState('');
  const [since, setSince] = useState('');
  const [lines, setLines] = useState(200);
  const [live, setLive] = useState(true);
  const [extra, setExtra] = useState<string[]>([]);
  const offset = useRef(0);
  const box = useRef<HTMLPreElement>(null);
  const files = useQuery({ queryKey: ['logfiles'], queryFn: () => api<LogFilesResponse>('/api/logs/files') });
  const filters = new URLSearchParams({ file, ...(level && { level }), ...(component && { component }), ...(session && { session }), ...(since && { since }) });
  const key = filters.toString();
  const data = useQuery({ queryKey: ['logs', key, lines], queryFn: () => api<LogPage>(`/api/logs?${filters}&lines=${lines}`) });
  useEffect(() => {
    setExtra([]);
    if (data.data) offset.current = data.data.size;
  }, [data.data]);
  useEffect(() => {
    if (!live || !data.data?.exists) return;
    const t = setInterval(async () => {
      try {
        const r = await api<LogPage>(`/api/logs?${filters}&from=${offset.current}`);
        if (r.rotated) return void data.refetch();
        offset.current = r.size;
        if (r.lines.length) setExtra((x) => [...x, ...r.lines].slice(-5000));
      } catch {
        /* the next poll tries again */
      }
    }, 2000);
    return () => clearInterval(t);
  }, [live, key, data.data]);
  const all = [...(data.data?.lines ?? []), ...extra];
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [all.length]);
  return (
    <div className="stack">
      <h1>Logs</h1>
      <div className="filters row wrap">
        <select value={file} onChange={(e) => setFile(e.target.value)} aria-label="Log file">
          {(files.data?.names ?? ['agent', 'errors', 'gateway', 'gui']).map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
        <select value={level} onChange={(e) => setLevel(e.target.value)} aria-label="Level">
          <option value="">all levels</option>
          {['DEBUG', 'INFO', 'WARNING', 'ERROR'].map((l) => (
            <option key={l} value={l}>
              {l} and above
            </option>
          ))}
        </select>
        <select value={component} onChange={(e) => setComponent(e.target.value)} aria-label="Component">
          <option value="">all components</option>
          {(files.data?.components ?? []).map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <select value={since} onChange={(e) => setSince(e.target.value)} aria-label="Since">
          <option value="">any time</option>
          {['15m', '1h', '6h', '1d', '7d'].map((s) => (
            <option key={s} value={s}>
              last {s}
            </option>
          ))}
        </select>
        <input placeholder="session id" value={session} onChange={(e) => setSession(e.target.value.trim())} aria-label="Session" />
        <select value={lines} onChange={(e) => setLines(Number(e.target.value))} aria-label="Lines">
          {[100, 200, 500, 1000].map((n) => (
            <option key={n} value={n}>
              {n} lines
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live
        </label>
      </div>
      {data.isLoading ? (
        <Loading what="the log" />
      ) : data.isError ? (
        <ErrorBox error={data.error} retry={() => data.refetch()} />
      ) : !data.data!.exists ? (
        <Empty title={`${data.data!.file} does not exist yet.`}>It is written when Hermes runs{file === 'gateway' ? ' the gateway' : ''}.</Empty>
      ) : !all.length ? (
        <Empty title="No line matches these filters." />
      ) : (
        <pre className="log" ref={box} data-testid="log-lines">
          {all.map((l, i) => (
            <div key={i} className={`line ${levelOf(l)}`}>
              {l}
            </div>
          ))}
        </pre>
      )}
    </div>
  );
}
