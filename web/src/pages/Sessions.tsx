// Sessions: every saved conversation (50 at a time), filters by source, model and date, full-text
// search over all messages, and one session's transcript with tool calls and reasoning folded,
// rename, export (JSONL), delete and resume in Chat.
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { ago, api, del, num, patch, usd, when } from '../api.ts';
import { Badge, Confirm, Empty, ErrorBox, failText, Loading, useToast } from '../ui.tsx';
import type { FacetsResponse, SearchHit as Hit, SearchResponse, SessionListItem as Item, SessionListResponse, SessionResponse } from '../../../src/dashboard/api-types.ts';

const PAGE = 50;

/** `>>>word<<<` markers from the FTS snippet as <mark>. */
function marked(snippet: string): ReactNode[] {
  return snippet.split(/(>>>.*?<<<)/).map((part, i) => (part.startsWith('>>>') ? <mark key={i}>{part.slice(3, -3)}</mark> : part));
}

/** Best hit of each session (in rank order) and how many more it has. */
function bySession(hits: Hit[]): [Hit, number][] {
  const seen = new Map<string, [Hit, number]>();
  for (const h of hits) {
    const have = seen.get(h.session_id);
    if (have) have[1]++;
    else seen.set(h.session_id, [h, 0]);
  }
  return [...seen.values()];
}

function highlight(text: string, q: string): ReactNode {
  const words = q.split(/\s+/).map((w) => w.replace(/["*]/g, '')).filter((w) => w.length > 1);
  if (!words.length) return text;
  const re = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'gi');
  return text.split(re).map((p, i) => (i % 2 ? <mark key={i}>{p}</mark> : p));
}

export default function Sessions({ id }: { id?: string }) {
  const [, go] = useLocation();
  const [source, setSource] = useState('');
  const [model, setModel] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const facets = useQuery({ queryKey: ['facets'], queryFn: () => api<FacetsResponse>('/api/sessions/facets') });
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (source) params.set('source', source);
  if (model) params.set('model', model);
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  const list = useInfiniteQuery({
    queryKey: ['sessions', params.toString()],
    queryFn: ({ pageParam }) => api<SessionListResponse>(`/api/sessions?${params}&offset=${pageParam}`),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => (pages.length * PAGE < last.total ? pages.length * PAGE : undefined),
    enabled: !query,
  });
  const hits = useQuery({
    queryKey: ['search', query, source],
    queryFn: () => api<SearchResponse>(`/api/sessions/search?${new URLSearchParams({ q: query, ...(source ? { source } : {}) })}`),
    enabled: !!query,
  });
  const items = list.data?.pages.flatMap((p) => p.sessions) ?? [];
  const total = list.data?.pages[0]?.total ?? 0;

  return (
    <div className={id ? 'split' : ''}>
      <section className="stack" aria-label="Sessions">
        <h1>Sessions</h1>
        <form
          className="filters row wrap"
          onSubmit={(e) => {
            e.preventDefault();
            setQuery(typed.trim());
          }}
        >
          <input type="search" placeholder="Search every message…" value={typed} onChange={(e) => (setTyped(e.target.value), e.target.value ? null : setQuery(''))} aria-label="Search messages" />
          <button className="btn primary">Search</button>
          <select value={source} onChange={(e) => setSource(e.target.value)} aria-label="Source">
            <option value="">all sources</option>
            {facets.data?.sources.map((s) => (
              <option key={s.value} value={s.value}>
                {s.value} ({s.count})
              </option>
            ))}
          </select>
          <select value={model} onChange={(e) => setModel(e.target.value)} aria-label="Model" disabled={!!query}>
            <option value="">all models</option>
            {facets.data?.models.map((m) => (
              <option key={m.value} value={m.value}>
                {m.value} ({m.count})
              </option>
            ))}
          </select>
          <label className="small">
            from <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} disabled={!!query} />
          </label>
          <label className="small">
            to <input type="date" value={to} onChange={(e) => setTo(e.target.value)} disabled={!!query} />
          </label>
        </form>
        {query ? (
          hits.isLoading ? (
            <Loading what="search results" />
          ) : hits.isError ? (
            <ErrorBox error={hits.error} />
          ) : !hits.data?.hits.length ? (
            <Empty title={`No message mentions “${query}”.`}>Try fewer or other words; put a phrase in quotes.</Empty>
          ) : (
            <ul className="list hits" data-testid="search-results">
              {bySession(hits.data.hits).map(([h, more]) => (
                <li key={h.session_id}>
                  <Link href={`/sessions/${h.session_id}?q=${encodeURIComponent(query)}`} className={h.session_id === id ? 'active' : ''}>
                    <div className="row between">
                      <strong className="ellipsis">{h.title || h.session_id}</strong>
                      <span className="muted small">
                        <Badge>{h.source}</Badge> {ago(h.timestamp)}
                      </span>
                    </div>
                    <div className="snippet small">
                      <span className="muted">{h.role}:</span> {marked(h.snippet)}
                      {more > 0 && <span className="muted"> (+{more} more)</span>}
                    </div>
                  </Link>
                </li>
              ))}
            </ul>
          )
        ) : list.isLoading ? (
          <Loading what="sessions" />
        ) : list.isError ? (
          <ErrorBox error={list.error} retry={() => list.refetch()} />
        ) : !items.length ? (
          <Empty title={source || model || from || to ? 'No session matches these filters.' : 'No conversations yet.'}>
            {source || model || from || to ? 'Clear a filter to see more.' : <>Start one in <Link href="/chat">Chat</Link> or with <code>hermes</code> in a terminal.</>}
          </Empty>
        ) : (
          <>
            <div className="muted small">
              {num(total)} session{total === 1 ? '' : 's'}
            </div>
            <table className="table" data-testid="sessions-table">
              <thead>
                <tr>
                  <th>Conversation</th>
                  <th>Source</th>
                  <th>Model</th>
                  <th className="num">Msgs</th>
                  <th className="num">Tools</th>
                  <th>Active</th>
                </tr>
              </thead>
              <tbody>
                {items.map((s) => (
                  <tr key={s.id} className={s.id === id ? 'active' : ''} onClick={() => go(`/sessions/${s.id}`)}>
                    <td className="ellipsis wide">
                      <Link href={`/sessions/${s.id}`}>{s.title || s.preview || <span className="muted">{s.id}</span>}</Link>
                    </td>
                    <td>
                      <Badge>{s.source}</Badge>
                    </td>
                    <td className="ellipsis muted small">{s.model ?? '—'}</td>
                    <td className="num">{s.message_count}</td>
                    <td className="num">{s.tool_call_count}</td>
                    <td className="muted small nowrap">{ago(s.last_active)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {list.hasNextPage && (
              <button className="btn" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                {list.isFetchingNextPage ? 'Loading…' : `Show more (${num(total - items.length)} left)`}
              </button>
            )}
          </>
        )}
      </section>
      {id && <Detail id={id} />}
    </div>
  );
}

function Detail({ id }: { id: string }) {
  const [, go] = useLocation();
  const qc = useQueryClient();
  const toast = useToast();
  const q = new URLSearchParams(window.location.search).get('q') ?? '';
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const firstHit = useRef<HTMLDivElement | null>(null);
  const data = useQuery({ queryKey: ['session', id], queryFn: () => api<SessionResponse>(`/api/sessions/${encodeURIComponent(id)}`) });
  useEffect(() => {
    if (q && data.data) firstHit.current?.scrollIntoView({ block: 'center' });
  }, [q, data.data]);
  if (data.isLoading) return <Loading what="the conversation" />;
  if (data.isError) return <ErrorBox error={data.error} retry={() => data.refetch()} />;
  const s = data.data!.session;
  const msgs = data.data!.messages;
  const lower = q.toLowerCase().split(/\s+/).filter((w) => w.length > 1);
  let marked = false;
  const save = async () => {
    try {
      await patch(`/api/sessions/${encodeURIComponent(id)}`, { title: renaming?.trim() || null });
      setRenaming(null);
      qc.invalidateQueries({ queryKey: ['session', id] });
      qc.invalidateQueries({ queryKey: ['sessions'] });
      toast('Renamed.');
    } catch (e) {
      toast(failText(e), 'error');
    }
  };
  const remove = async () => {
    setConfirm(false);
    try {
      await del(`/api/sessions/${encodeURIComponent(id)}`);
      qc.invalidateQueries({ queryKey: ['sessions'] });
      toast('Deleted the session.');
      go('/sessions');
    } catch (e) {
      toast(failText(e), 'error');
    }
  };
  return (
    <section className="detail stack" aria-label="Conversation" data-testid="session-detail">
      <div className="row between wrap">
        {renaming === null ? (
          <h2 className="ellipsis">{s.title || <span className="muted">untitled</span>}</h2>
        ) : (
          <form className="row" onSubmit={(e) => (e.preventDefault(), void save())}>
            <input autoFocus value={renaming} onChange={(e) => setRenaming(e.target.value)} aria-label="Title" maxLength={100} />
            <button className="btn primary">Save</button>
            <button type="button" className="btn" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </form>
        )}
        <div className="row wrap">
          <button className="btn small" onClick={() => setRenaming(s.title ?? '')}>
            Rename
          </button>
          <Link className="btn small primary" href={`/chat?resume=${encodeURIComponent(s.id)}`}>
            Resume in chat
          </Link>
          <a className="btn small" href={`/api/sessions/${encodeURIComponent(s.id)}/export`} download>
            Export JSONL
          </a>
          <button className="btn small danger" onClick={() => setConfirm(true)}>
            Delete
          </button>
        </div>
      </div>
      <div className="muted small">
        <Badge>{s.source}</Badge> {s.model ?? 'no model'} · started {when(s.started_at)} · {num(s.input_tokens)} in / {num(s.output_tokens)} out · {usd(s.estimated_cost_usd)} · <span className="mono">{s.id}</span>
      </div>
      <div className="transcript">
        {msgs.map((m) => {
          const hit = !marked && lower.length > 0 && lower.some((w) => m.content.toLowerCase().includes(w));
          if (hit) marked = true;
          return (
            <div key={m.id} ref={hit ? firstHit : undefined} className={`msg ${m.role}${m.compacted ? ' compacted' : ''}`}>
              {m.role === 'tool' ? (
                <details>
                  <summary>
                    ↳ result of <span className="mono">{m.toolName ?? 'tool'}</span> <span className="muted small">({m.content.length.toLocaleString()} chars)</span>
                  </summary>
                  <pre>{q ? highlight(m.content, q) : m.content}</pre>
                </details>
              ) : (
                <>
                  <div className="who small muted">
                    {m.role} · {when(m.timestamp)}
                    {m.compacted ? ' · compressed away' : ''}
                  </div>
                  {m.reasoning && (
                    <details className="reasoning">
                      <summary>💭 Reasoning</summary>
                      <pre>{m.reasoning}</pre>
                    </details>
                  )}
                  {m.content && <div className="text">{q ? highlight(m.content, q) : m.content}</div>}
                  {m.toolCalls.map((c) => (
                    <details key={c.id} className="call">
                      <summary>
                        🔧 <span className="mono">{c.name}</span>
                      </summary>
                      <pre>{c.arguments}</pre>
                    </details>
                  ))}
                </>
              )}
            </div>
          );
        })}
        {!msgs.length && <Empty title="This session has no messages." />}
      </div>
      {confirm && <Confirm text={`Delete “${s.title || s.id}” and its ${s.message_count} messages? This cannot be undone.`} yes="Delete" onYes={remove} onNo={() => setConfirm(false)} />}
    </section>
  );
}
