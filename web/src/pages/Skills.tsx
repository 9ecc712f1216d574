// Skills: installed skills by category, turn one off or on (config skills.disabled), read its
// SKILL.md and the guard's verdict, install from a folder / git URL / SKILL.md URL (scanned in
// quarantine first, as `hermes skills install`), uninstall.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, del, post, put } from '../api.ts';
import { Badge, Confirm, Empty, ErrorBox, failText, Loading, useToast } from '../ui.tsx';
import type { SkillListItem, SkillResponse, SkillsResponse } from '../../../src/dashboard/api-types.ts';

function View({ name, onClose }: { name: string; onClose: () => void }) {
  const data = useQuery({ queryKey: ['skill', name], queryFn: () => api<SkillResponse>(`/api/skills/${encodeURIComponent(name)}`) });
  return (
    <section className="card stack">
      <div className="row between">
        <h2>{name}</h2>
        <button className="btn small" onClick={onClose}>
          Close
        </button>
      </div>
      {data.isLoading ? (
        <Loading what="the skill" />
      ) : data.isError ? (
        <ErrorBox error={data.error} />
      ) : (
        <>
          <div className="muted small">
            {data.data!.path} · guard: <Badge kind={data.data!.verdict === 'safe' ? 'ok' : 'warn'}>{data.data!.verdict}</Badge>
            {data.data!.installed && ` · installed from ${data.data!.installed.from}`}
          </div>
          {data.data!.findings.map((f) => (
            <div key={f} className="state warn small">
              {f}
            </div>
          ))}
          {data.data!.files.length > 0 && <div className="small">Files: {data.data!.files.join(', ')}</div>}
          <pre className="markdown">{data.data!.markdown}</pre>
        </>
      )}
    </section>
  );
}

export default function Skills() {
  const toast = useToast();
  const qc = useQueryClient();
  const data = useQuery({ queryKey: ['skills'], queryFn: () => api<SkillsResponse>('/api/skills') });
  const [filter, setFilter] = useState('');
  const [viewing, setViewing] = useState<string | null>(null);
  const [source, setSource] = useState('');
  const [force, setForce] = useState(false);
  const [installing, setInstalling] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const toggle = async (s: SkillListItem) => {
    try {
      await put('/api/skills/toggle', { name: s.name, enabled: !s.enabled });
      toast(`${s.name} ${s.enabled ? 'turned off' : 'turned on'} (new sessions).`);
      qc.invalidateQueries({ queryKey: ['skills'] });
    } catch (e) {
      toast(failText(e), 'error');
    }
  };
  const install = async () => {
    setInstalling(true);
    try {
      const r = await post<{ name: string; verdict: string; findings: string[] }>('/api/skills/install', { source, force });
      toast(`Installed ${r.name} (guard: ${r.verdict}).`);
      setSource('');
      qc.invalidateQueries({ queryKey: ['skills'] });
    } catch (e) {
      toast(failText(e), 'error');
    } finally {
      setInstalling(false);
    }
  };
  const skills = (data.data?.skills ?? []).filter((s) => !filter || `${s.name} ${s.description} ${s.category}`.toLowerCase().includes(filter.toLowerCase()));
  const cats = [...new Set(skills.map((s) => s.category))].sort();
  return (
    <div className="stack">
      <h1>Skills</h1>
      <form className="card row wrap" onSubmit={(e) => (e.preventDefault(), void install())}>
        <span className="label">Install</span>
        <input className="grow" value={source} onChange={(e) => setSource(e.target.value)} placeholder="a folder, a git URL (url#subdir) or a SKILL.md URL" aria-label="Skill source" />
        <label className="check small">
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> despite cautionary findings
        </label>
        <button className="btn primary" disabled={!source || installing}>
          {installing ? 'Scanning…' : 'Install'}
        </button>
      </form>
      {viewing && <View name={viewing} onClose={() => setViewing(null)} />}
      <input type="search" placeholder="Filter skills…" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Filter skills" />
      {data.data?.problems.map((p) => (
        <div key={p.path} className="state warn small">
          {p.path}: {p.error}
        </div>
      ))}
      {data.isLoading ? (
        <Loading what="skills" />
      ) : data.isError ? (
        <ErrorBox error={data.error} retry={() => data.refetch()} />
      ) : !skills.length ? (
        <Empty title={filter ? 'No skill matches.' : 'No skills installed.'}>Install one above, or let the agent write one.</Empty>
      ) : (
        cats.map((c) => (
          <div key={c} className="card">
            <div className="label">{c}</div>
            <table className="table">
              <tbody>
                {skills
                  .filter((s) => s.category === c)
                  .map((s) => (
                    <tr key={s.name} className={s.enabled ? '' : 'off'}>
                      <td>
                        <button className="link mono" onClick={() => setViewing(s.name)}>
                          {s.name}
                        </button>
                      </td>
                      <td className="small">{s.description}</td>
                      <td>
                        <Badge>{s.source}</Badge>
                      </td>
                      <td className="nowrap">
                        <label className="check small">
                          <input type="checkbox" checked={s.enabled} onChange={() => void toggle(s)} aria-label={`${s.name} enabled`} /> on
                        </label>
                      </td>
                      <td>
                        {s.source !== 'bundled' && (
                          <button className="btn small danger" onClick={() => setRemoving(s.name)}>
                            Uninstall
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        ))
      )}
      {removing && (
        <Confirm
          text={`Uninstall the skill ${removing}? Its folder is deleted.`}
          yes="Uninstall"
          onNo={() => setRemoving(null)}
          onYes={async () => {
            const n = removing;
            setRemoving(null);
            try {
              await del(`/api/skills/${encodeURIComponent(n)}`);
              toast(`Uninstalled ${n}.`);
              qc.invalidateQueries({ queryKey: ['skills'] });
            } catch (e) {
              toast(failText(e), 'error');
            }
          }}
        />
      )}
    </div>
  );
}
