// Analytics: what the agent cost and did over 7, 30 or 90 days (the `hermes insights` report):
// tokens and cost per day as charts (uPlot), and tables per model, source and tool.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { api, num, usd } from '../api.ts';
import { Empty, ErrorBox, Loading } from '../ui.tsx';

interface Report {
  days: number;
  empty: boolean;
  overview: Record<string, number>;
  daily: { date: string; sessions: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; toolCalls: number; costUsd: number }[];
  models: { model: string; sessions: number; inputTokens: number; outputTokens: number; totalTokens: number; toolCalls: number; costUsd: number; priced: boolean }[];
  sources: { source: string; sessions: number; messages: number; totalTokens: number; toolCalls: number; costUsd: number }[];
  tools: { tool: string; count: number; pct: number }[];
  activity: { byHour: { hour: number; count: number }[]; byDay: { day: string; count: number }[]; activeDays: number; maxStreak: number };
}

const bars = uPlot.paths.bars!;
const AXIS = { stroke: '#8a96a8', grid: { stroke: '#1f2935' }, ticks: { stroke: '#1f2935' } };

function Chart({ opts, data }: { opts: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = el.current!;
    const plot = new uPlot({ ...opts, width: box.clientWidth || 600, height: 220 } as uPlot.Options, data, box);
    const ro = new ResizeObserver(() => plot.setSize({ width: box.clientWidth, height: 220 }));
    ro.observe(box);
    return () => (ro.disconnect(), plot.destroy());
  }, [opts, data]);
  return <div className="chart" ref={el} />;
}

function dayTs(date: string): number {
  return new Date(`${date}T12:00:00`).getTime() / 1000;
}

export default function Analytics() {
  const [days, setDays] = useState(30);
  const [source, setSource] = useState('');
  const data = useQuery({ queryKey: ['analytics', days, source], queryFn: () => api<Report>(`/api/analytics?days=${days}${source ? `&source=${encodeURIComponent(source)}` : ''}`) });
  const facets = useQuery({ queryKey: ['facets'], queryFn: () => api<{ sources: { value: string }[] }>('/api/sessions/facets') });
  const r = data.data;
  const tokenChart = useMemo(() => r && {
    data: [r.daily.map((d) => dayTs(d.date)), r.daily.map((d) => d.inputTokens), r.daily.map((d) => d.outputTokens)] as uPlot.AlignedData,
    opts: {
      axes: [AXIS, { ...AXIS, size: 60, values: (_u: uPlot, v: number[]) => v.map((x) => (x >= 1e6 ? `${x / 1e6}M` : x >= 1e3 ? `${x / 1e3}k` : String(x))) }],
      series: [
        {},
        { label: 'input tokens', fill: '#39bae6aa', stroke: '#39bae6', paths: bars({ size: [0.4, 40], align: -1 }), points: { show: false } },
        { label: 'output tokens', fill: '#e6b450aa', stroke: '#e6b450', paths: bars({ size: [0.4, 40], align: 1 }), points: { show: false } },
      ],
      legend: { show: true },
      scales: { x: { time: true, range: (_u: uPlot, lo: number, hi: number) => [lo - 43200, hi + 43200] } },
    } as Omit<uPlot.Options, 'width' | 'height'>,
  }, [r]);
  const costChart = useMemo(() => r && {
    data: [r.daily.map((d) => dayTs(d.date)), r.daily.map((d) => d.costUsd), r.daily.map((d) => d.sessions)] as uPlot.AlignedData,
    opts: {
      axes: [AXIS, { ...AXIS, scale: '$', size: 60, values: (_u: uPlot, v: number[]) => v.map((x) => (x > 0 && x < 0.1 ? `$${x.toFixed(3)}` : `$${x.toFixed(2)}`)) }, { ...AXIS, scale: 'n', side: 1, grid: { show: false } }],
      scales: { x: { time: true, range: (_u: uPlot, lo: number, hi: number) => [lo - 43200, hi + 43200] }, $: {}, n: {} },
      series: [{}, { label: 'cost', scale: '$', stroke: '#c2d94c', width: 2, value: (_u: uPlot, v: number) => (v == null ? '' : usd(v)) }, { label: 'sessions', scale: 'n', stroke: '#95e6cb', paths: bars({ size: [0.5, 30] }), fill: '#95e6cb44' }],
    } as Omit<uPlot.Options, 'width' | 'height'>,
  }, [r]);
  const peakHour = r ? Math.max(1, ...r.activity.byHour.map((h) => h.count)) : 1;
  return (
    <div className="stack">
      <div className="row between wrap">
        <h1>Analytics</h1>
        <div className="row">
          <select value={source} onChange={(e) => setSource(e.target.value)} aria-label="Source">
            <option value="">all sources</option>
            {facets.data?.sources.map((s) => (
              <option key={s.value}>{s.value}</option>
            ))}
          </select>
          {[7, 30, 90].map((d) => (
            <button key={d} className={d === days ? 'btn small primary' : 'btn small'} onClick={() => setDays(d)}>
              {d} days
            </button>
          ))}
        </div>
      </div>
      {data.isLoading ? (
        <Loading what="usage" />
      ) : data.isError ? (
        <ErrorBox error={data.error} retry={() => data.refetch()} />
      ) : r!.empty ? (
        <Empty title={`No sessions in the last ${days} days${source ? ` from ${source}` : ''}.`}>Usage shows here once you chat.</Empty>
      ) : (
        <>
          <div className="cards">
            <div className="card stat">
              <div className="label">Cost</div>
              <div className="value" data-testid="total-cost">
                {usd(r!.overview.costUsd)}
              </div>
              <div className="muted small">{r!.overview.unknownCostSessions ? `+ ${r!.overview.unknownCostSessions} session(s) with no known price` : 'estimate; a lower bound'}</div>
            </div>
            <div className="card stat">
              <div className="label">Tokens</div>
              <div className="value">{num(r!.overview.inputTokens + r!.overview.outputTokens)}</div>
              <div className="muted small">
                {num(r!.overview.inputTokens)} in · {num(r!.overview.outputTokens)} out · cache hits {r!.overview.cacheHitPct.toFixed(0)}%
              </div>
            </div>
            <div className="card stat">
              <div className="label">Sessions</div>
              <div className="value">{num(r!.overview.sessions)}</div>
              <div className="muted small">
                {(r!.overview.sessions / days).toFixed(1)} a day · {num(r!.overview.messages)} messages
              </div>
            </div>
            <div className="card stat">
              <div className="label">Tool calls</div>
              <div className="value">{num(r!.overview.toolCalls)}</div>
              <div className="muted small">{num(r!.overview.apiCalls)} API calls</div>
            </div>
          </div>
          <div className="card">
            <div className="label">Tokens per day</div>
            <Chart opts={tokenChart!.opts} data={tokenChart!.data} />
          </div>
          <div className="card">
            <div className="label">Cost and sessions per day</div>
            <Chart opts={costChart!.opts} data={costChart!.data} />
          </div>
          <div className="grid2">
            <div className="card">
              <div className="label">Per model</div>
              <table className="table">
                <thead>
                  <tr>
                    <th>Model</th>
                    <th className="num">Sessions</th>
                    <th className="num">Tokens</th>
                    <th className="num">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {r!.models.map((m) => (
                    <tr key={m.model}>
                      <td className="mono">{m.model}</td>
                      <td className="num">{m.sessions}</td>
                      <td className="num">{num(m.totalTokens)}</td>
                      <td className="num">{m.priced ? usd(m.costUsd) : '?'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="card">
              <div className="label">Per source</div>
              <table className="table">
                <thead>
                  <tr>
                    <th>Source</th>
                    <th className="num">Sessions</th>
                    <th className="num">Tool calls</th>
                    <th className="num">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {r!.sources.map((s) => (
                    <tr key={s.source}>
                      <td>{s.source}</td>
                      <td className="num">{s.sessions}</td>
                      <td className="num">{num(s.toolCalls)}</td>
                      <td className="num">{usd(s.costUsd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="card">
              <div className="label">Tools used most</div>
              {!r!.tools.length && <div className="muted small">No tool calls in this period.</div>}
              {r!.tools.slice(0, 12).map((t) => (
                <div key={t.tool} className="hbar">
                  <span className="mono">{t.tool}</span>
                  <span className="bar" style={{ width: `${Math.max(2, t.pct)}%` }} />
                  <span className="small">{t.count}</span>
                </div>
              ))}
            </div>
            <div className="card">
              <div className="label">
                When you work · {r!.activity.activeDays} active days{r!.activity.maxStreak > 1 ? ` · best streak ${r!.activity.maxStreak}` : ''}
              </div>
              <div className="hours">
                {r!.activity.byHour.map((h) => (
                  <div key={h.hour} title={`${h.hour}:00 — ${h.count} session(s)`} className="hour" style={{ height: `${(h.count / peakHour) * 100}%` }} />
                ))}
              </div>
              <div className="row between muted small">
                <span>0:00</span>
                <span>12:00</span>
                <span>23:00</span>
              </div>
            </div>
          </div>
        </>
      )}
    </div>
  );
}
