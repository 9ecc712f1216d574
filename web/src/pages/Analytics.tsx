// Analytics: what the agent cost and did over 7, 30 or 90 days (the `hermes insights` report):
// tokens and cost per day as charts (uPlot), and tables per model, source and tool. Tokens are the
// report's one definition: input, cache read, cache write and output apart, total = all four.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { api, num, usd } from '../api.ts';
import { axisWidth, compactCount, COUNT_INCRS, MONEY_INCRS, moneyLabel, zeroBasedRange } from '../chart-axes.ts';
import { Empty, ErrorBox, Loading } from '../ui.tsx';
import type { AnalyticsReport, FacetsResponse } from '../../../src/dashboard/api-types.ts';

const bars = uPlot.paths.bars!;
const AXIS = { stroke: '#8a96a8', grid: { stroke: '#1f2935' }, ticks: { stroke: '#1f2935' } };
/** As wide as the longest label (uPlot's fixed 50px clips "$0.025" or "1.25M"). */
const fitSize = (u: uPlot, values: string[], axisIdx: number, cycle: number): number => {
  const axis = u.axes[axisIdx] as uPlot.Axis & { _size?: number; font?: string[] };
  if (cycle > 1 && axis._size) return axis._size;
  return axisWidth(values, (t) => {
    u.ctx.font = axis.font?.[0] ?? '12px sans-serif';
    return u.ctx.measureText(t).width / (window.devicePixelRatio || 1);
  }, 18);
};
const DAY_RANGE = (_u: uPlot, lo: number, hi: number): uPlot.Range.MinMax => [lo - 43200, hi + 43200];
/** Token series, stacked: each is drawn from 0 to its running sum, the later (lower) ones on top. */
const TOKEN_PARTS = [
  { key: 'outputTokens', label: 'output', color: '#e6b450' },
  { key: 'cacheWriteTokens', label: 'cache write', color: '#f07178' },
  { key: 'cacheReadTokens', label: 'cache read', color: '#95e6cb' },
  { key: 'inputTokens', label: 'input', color: '#39bae6' },
] as const;

function Chart({ opts, data }: { opts: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = el.current!;
    // The drawn value ranges, on the element (what a reader of the axes sees; tests check them).
    const record = (u: uPlot) => {
      box.dataset.ranges = JSON.stringify(Object.fromEntries(Object.entries(u.scales).filter(([k]) => k !== 'x').map(([k, sc]) => [k, [sc.min, sc.max]])));
    };
    const plot = new uPlot({ ...opts, width: box.clientWidth || 600, height: 220, hooks: { draw: [record] } } as uPlot.Options, data, box);
    const ro = new ResizeObserver(() => plot.setSize({ width: box.clientWidth, height: 220 }));
    ro.observe(box);
    return () => (ro.disconnect(), plot.destroy());
  }, [opts, data]);
  return <div className="chart" ref={el} />;
}

/** A day's point sits at its local midnight, where its date label is. */
function dayTs(date: string): number {
  return new Date(`${date}T00:00:00`).getTime() / 1000;
}

const DAY_SERIES = { label: 'day', value: (_u: uPlot, t: number | null) => (t == null ? '—' : new Date(t * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric' })) };

/** The time axis: one label per day (or per few days), as a date, never hours. */
const DAY_AXIS = {
  ...AXIS,
  incrs: [86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400],
  values: (_u: uPlot, splits: number[]) => splits.map((t) => new Date(t * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric' })),
};

export default function Analytics() {
  const [days, setDays] = useState(30);
  const [source, setSource] = useState('');
  const data = useQuery({ queryKey: ['analytics', days, source], queryFn: () => api<AnalyticsReport>(`/api/analytics?days=${days}${source ? `&source=${encodeURIComponent(source)}` : ''}`) });
  const facets = useQuery({ queryKey: ['facets'], queryFn: () => api<FacetsResponse>('/api/sessions/facets') });
  const r = data.data;
  const tokenChart = useMemo(() => {
    if (!r) return null;
    // Running sums from the bottom (input) up to the top (output = the day's total).
    const parts = [...TOKEN_PARTS].reverse().map((p) => r.daily.map((d) => d[p.key]));
    const sums = parts.map((_, i) => r.daily.map((_d, j) => parts.slice(0, i + 1).reduce((a, q) => a + q[j], 0))).reverse();
    const own = [...parts].reverse();
    return {
      data: [r.daily.map((d) => dayTs(d.date)), ...sums] as uPlot.AlignedData,
      opts: {
        axes: [DAY_AXIS, { ...AXIS, size: fitSize, incrs: COUNT_INCRS, values: (_u: uPlot, v: number[]) => v.map(compactCount) }],
        series: [
          DAY_SERIES,
          ...TOKEN_PARTS.map((p, i) => ({ label: p.label, fill: `${p.color}cc`, stroke: p.color, paths: bars({ size: [0.6, 40] }), points: { show: false }, value: (_u: uPlot, _v: number, _s: number, idx: number | null) => (idx == null ? '' : num(own[i][idx])) })),
        ],
        legend: { show: true },
        scales: { x: { time: true, range: DAY_RANGE }, y: { range: (_u: uPlot, _lo: number, hi: number) => zeroBasedRange(hi, 1000) } },
      } as Omit<uPlot.Options, 'width' | 'height'>,
    };
  }, [r]);
  const costChart = useMemo(() => r && {
    data: [r.daily.map((d) => dayTs(d.date)), r.daily.map((d) => d.costUsd), r.daily.map((d) => d.sessions)] as uPlot.AlignedData,
    opts: {
      axes: [
        DAY_AXIS,
        { ...AXIS, scale: '$', size: fitSize, incrs: MONEY_INCRS, values: (_u: uPlot, v: number[], _a: number, _s: number, step: number) => v.map((x) => moneyLabel(x, step)) },
        { ...AXIS, scale: 'n', side: 1, size: fitSize, incrs: COUNT_INCRS, grid: { show: false }, values: (_u: uPlot, v: number[]) => v.map(compactCount) },
      ],
      // Both start at 0 and end at a round number above the data: $0 days draw $0–$1, never 0–100.
      scales: { x: { time: true, range: DAY_RANGE }, $: { range: (_u: uPlot, _lo: number, hi: number) => zeroBasedRange(hi, 1) }, n: { range: (_u: uPlot, _lo: number, hi: number) => zeroBasedRange(hi, 1) } },
      series: [DAY_SERIES, { label: 'cost', scale: '$', stroke: '#c2d94c', width: 2, value: (_u: uPlot, v: number) => (v == null ? '' : usd(v)) }, { label: 'sessions', scale: 'n', stroke: '#95e6cb', paths: bars({ size: [0.5, 30] }), fill: '#95e6cb44' }],
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
              <div className="label" title="total = input + cache read + cache write + output">Tokens (total)</div>
              <div className="value" data-testid="total-tokens">
                {num(r!.overview.tokens.total)}
              </div>
              <div className="muted small" data-testid="token-parts">
                input {num(r!.overview.tokens.input)} · cache read {num(r!.overview.tokens.cacheRead)} · cache write {num(r!.overview.tokens.cacheWrite)} · output {num(r!.overview.tokens.output)} · cache hits {r!.overview.tokens.cacheHitPct.toFixed(0)}%
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
            <div className="label">Tokens per day (stacked: input, cache read, cache write, output)</div>
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
                    <th className="num" title="input + cache read + cache write + output">Tokens (total)</th>
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
                    <th className="num" title="input + cache read + cache write + output">Tokens (total)</th>
                    <th className="num">Tool calls</th>
                    <th className="num">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {r!.sources.map((s) => (
                    <tr key={s.source}>
                      <td>{s.source}</td>
                      <td className="num">{s.sessions}</td>
                      <td className="num">{num(s.totalTokens)}</td>
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
