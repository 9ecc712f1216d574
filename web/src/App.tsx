// The shell: header (model badge, gateway state), the tabs, and the pages (each loaded on first
// visit, so the Sessions tab does not wait for the terminal or the charts).
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { api, type Status } from './api.ts';
import { ErrorBox, Loading } from './ui.tsx';
import { Overview } from './pages/Overview.tsx';

const Chat = lazy(() => import('./pages/Chat.tsx'));
const Sessions = lazy(() => import('./pages/Sessions.tsx'));
const Analytics = lazy(() => import('./pages/Analytics.tsx'));
const Config = lazy(() => import('./pages/Config.tsx'));
const Logs = lazy(() => import('./pages/Logs.tsx'));
const Cron = lazy(() => import('./pages/Cron.tsx'));
const Skills = lazy(() => import('./pages/Skills.tsx'));
const Gateway = lazy(() => import('./pages/Gateway.tsx'));
const PluginPage = lazy(() => import('./pages/Plugin.tsx'));

const TABS: { path: string; label: string }[] = [
  { path: '/', label: 'Status' },
  { path: '/chat', label: 'Chat' },
  { path: '/sessions', label: 'Sessions' },
  { path: '/analytics', label: 'Analytics' },
  { path: '/config', label: 'Config' },
  { path: '/logs', label: 'Logs' },
  { path: '/cron', label: 'Cron' },
  { path: '/skills', label: 'Skills' },
  { path: '/gateway', label: 'Gateway' },
];

function tabsWithPlugins(status: Status | undefined) {
  const tabs = [...TABS];
  for (const p of status?.plugins ?? []) {
    if (p.tab.hidden) continue;
    const t = { path: p.tab.path, label: p.label };
    const m = /^(after|before):(.+)$/.exec(p.tab.position);
    const i = m ? tabs.findIndex((x) => x.path === `/${m[2]}`) : -1;
    if (i >= 0) tabs.splice(m![1] === 'after' ? i + 1 : i, 0, t);
    else tabs.push(t);
  }
  return tabs;
}

export function App() {
  const [location] = useLocation();
  const status = useQuery({ queryKey: ['status'], queryFn: () => api<Status>('/api/status'), refetchInterval: 10_000 });
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [location]);
  const s = status.data;
  const tabs = tabsWithPlugins(s);
  const active = (p: string) => (p === '/' ? location === '/' : location === p || location.startsWith(`${p}/`));
  return (
    <div className="shell">
      <header className="top">
        <Link href="/" className="brand">
          ⚕ Hermes
        </Link>
        <button className="btn small menu-toggle" onClick={() => setMenu(!menu)} aria-label="Menu">
          ☰
        </button>
        <nav className={menu ? 'tabs open' : 'tabs'} aria-label="Dashboard">
          {tabs.map((t) => (
            <Link key={t.path} href={t.path} className={active(t.path) ? 'tab active' : 'tab'} aria-current={active(t.path) ? 'page' : undefined}>
              {t.label}
            </Link>
          ))}
        </nav>
        <div className="status-line">
          {s?.model ? (
            <span className="badge model" title={`provider ${s.model.provider}`}>
              {s.model.model}
            </span>
          ) : s ? (
            <Link href="/config" className="badge warn">
              no model set up
            </Link>
          ) : null}
          {s && <span className={`dot ${s.gateway.running ? 'on' : 'off'}`} title={s.gateway.running ? `gateway running (pid ${s.gateway.pid})` : 'gateway not running'} />}
          {s && <span className="muted small">v{s.version}</span>}
        </div>
      </header>
      {status.isError && <ErrorBox error={status.error} retry={() => status.refetch()} />}
      <main className="page">
        <Suspense fallback={<Loading what="the page" />}>
          <Switch>
            <Route path="/">{() => <Overview status={s} loading={status.isLoading} />}</Route>
            <Route path="/chat" component={Chat} />
            <Route path="/sessions">{() => <Sessions />}</Route>
            <Route path="/sessions/:id">{(p) => <Sessions id={p.id} />}</Route>
            <Route path="/analytics" component={Analytics} />
            <Route path="/config">{() => <Config />}</Route>
            <Route path="/config/:section">{(p) => <Config section={p.section} />}</Route>
            <Route path="/logs" component={Logs} />
            <Route path="/cron" component={Cron} />
            <Route path="/skills" component={Skills} />
            <Route path="/gateway" component={Gateway} />
            {(s?.plugins ?? []).map((p) => (
              <Route key={p.name} path={p.tab.path}>
                {() => <PluginPage plugin={p} />}
              </Route>
            ))}
            <Route>{() => (s ? <Redirect to="/" /> : <Loading what="the page" />)}</Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}
