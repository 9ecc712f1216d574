// Config: the provider and model (the same catalog and /models lookup as `hermes model`), the
// keys in ~/.hermes/.env (write-only: the page never gets a value back), and every setting of
// config.yaml as a form generated from the defaults, with the default shown and checked on save.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { ApiError, api, del, put } from '../api.ts';
import { Badge, Confirm, Empty, ErrorBox, failText, Loading, useToast } from '../ui.tsx';
import type { ConfigFieldView as Field, ConfigResponse, EnvKey as Key, EnvResponse, ModelResponse, ModelsResponse, ProviderOption as Provider } from '../../../src/dashboard/api-types.ts';

export default function Config({ section }: { section?: string }) {
  const tab = section ?? 'model';
  return (
    <div className="stack">
      <h1>Config</h1>
      <nav className="subtabs">
        {[
          ['model', 'Provider & model'],
          ['keys', 'Keys'],
          ['settings', 'Settings'],
        ].map(([id, label]) => (
          <Link key={id} href={`/config/${id}`} className={tab === id ? 'subtab active' : 'subtab'}>
            {label}
          </Link>
        ))}
      </nav>
      {tab === 'model' ? <ModelPicker /> : tab === 'keys' ? <Keys /> : <Settings />}
    </div>
  );
}

function ModelPicker() {
  const toast = useToast();
  const qc = useQueryClient();
  const data = useQuery({ queryKey: ['model'], queryFn: () => api<ModelResponse>('/api/model') });
  const [provider, setProvider] = useState<string | null>(null);
  const [baseUrlEdit, setBaseUrl] = useState<string | null>(null);
  const [model, setModel] = useState('');
  const [key, setKey] = useState('');
  const [test, setTest] = useState(false);
  const [models, setModels] = useState<string[] | null>(null);
  const [listing, setListing] = useState(false);
  const [saving, setSaving] = useState(false);
  const [listError, setListError] = useState<string | null>(null);
  if (data.isLoading) return <Loading what="providers" />;
  if (data.isError) return <ErrorBox error={data.error} retry={() => data.refetch()} />;
  const cur = data.data!.current;
  const chosen = provider ?? (cur.configured && cur.configured !== 'auto' ? cur.configured : cur.provider?.replace(/^custom:/, '')) ?? '';
  const p = data.data!.providers.find((x) => x.value === chosen);
  const baseUrl = baseUrlEdit ?? (p?.custom && cur.provider?.startsWith('custom') ? (cur.baseUrl ?? '') : '');
  const list = async () => {
    setListing(true);
    setListError(null);
    try {
      const r = await api<ModelsResponse>(`/api/model/models?${new URLSearchParams({ provider: chosen, ...(p?.custom ? { base_url: baseUrl } : {}) })}`);
      setModels(r.models.map((m) => m.id));
      if (!r.models.length) setListError('The provider lists no models; type the name yourself.');
    } catch (e) {
      setListError(failText(e));
    } finally {
      setListing(false);
    }
  };
  const save = async () => {
    setSaving(true);
    try {
      const r = await put<{ saved: string[]; warning: string | null }>('/api/model', { provider: chosen, model: model.trim(), base_url: baseUrl || undefined, api_key: key || undefined, test });
      toast(`Saved: ${r.saved.join('; ')}`);
      if (r.warning) toast(r.warning, 'error');
      setKey('');
      qc.invalidateQueries();
    } catch (e) {
      toast(failText(e), 'error');
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="stack narrow">
      <div className="card">
        <div className="label">Now</div>
        {data.data!.problem ? (
          <div className="state warn">{data.data!.problem}</div>
        ) : (
          <div>
            <strong data-testid="current-model">{cur.model}</strong> via {cur.provider} <span className="muted small">({cur.apiMode}, {cur.baseUrl})</span>
          </div>
        )}
      </div>
      <label>
        Provider
        <select
          value={chosen}
          onChange={(e) => {
            setProvider(e.target.value);
            setModels(null);
            setModel('');
          }}
          aria-label="Provider"
        >
          <option value="" disabled>
            pick a provider
          </option>
          {data.data!.providers.map((x) => (
            <option key={x.value} value={x.value}>
              {x.label}
              {x.hasKey ? ' ✓' : ''}
            </option>
          ))}
        </select>
      </label>
      {p && <div className="muted small">{p.keyOptional ? 'No key needed.' : p.hasKey ? `Key found (${p.keyEnv}).` : `Needs ${p.keyEnv ?? 'a key'}: paste it below or under Keys.`}</div>}
      {p?.custom && (
        <label>
          Base URL
          <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://localhost:11434/v1" aria-label="Base URL" />
        </label>
      )}
      {p && !p.keyOptional && !p.hasKey && (
        <label>
          API key <span className="muted small">(saved to .env as {p.keyEnv}; never shown again)</span>
          <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} aria-label="API key" />
        </label>
      )}
      <label>
        Model
        <div className="row">
          <input list="models" value={model} onChange={(e) => setModel(e.target.value)} placeholder={p?.defaultModel ?? cur.model ?? 'model name'} aria-label="Model" />
          <button className="btn" onClick={list} disabled={!chosen || listing}>
            {listing ? 'Asking…' : 'List models'}
          </button>
        </div>
        <datalist id="models">{models?.map((m) => <option key={m} value={m} />)}</datalist>
      </label>
      {listError && <div className="state warn small">{listError}</div>}
      {models && models.length > 0 && (
        <div className="chips" data-testid="model-list">
          {models.slice(0, 60).map((m) => (
            <button key={m} className={m === model ? 'chip active' : 'chip'} onClick={() => setModel(m)}>
              {m}
            </button>
          ))}
        </div>
      )}
      <label className="check">
        <input type="checkbox" checked={test} onChange={(e) => setTest(e.target.checked)} /> Make a test call before saving
      </label>
      <div>
        <button className="btn primary" onClick={save} disabled={!chosen || !model.trim() || saving}>
          {saving ? 'Saving…' : 'Save provider and model'}
        </button>
      </div>
    </div>
  );
}

function Keys() {
  const toast = useToast();
  const qc = useQueryClient();
  const data = useQuery({ queryKey: ['env'], queryFn: () => api<EnvResponse>('/api/env') });
  const [values, setValues] = useState<Record<string, string>>({});
  const [newName, setNewName] = useState('');
  const [newValue, setNewValue] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  if (data.isLoading) return <Loading what="keys" />;
  if (data.isError) return <ErrorBox error={data.error} retry={() => data.refetch()} />;
  const save = async (name: string, value: string) => {
    try {
      await put('/api/env', { name, value });
      setValues((v) => ({ ...v, [name]: '' }));
      toast(`${name} saved.`);
      qc.invalidateQueries({ queryKey: ['env'] });
      qc.invalidateQueries({ queryKey: ['model'] });
      qc.invalidateQueries({ queryKey: ['status'] });
    } catch (e) {
      toast(failText(e), 'error');
    }
  };
  const groups = [...new Set(data.data!.keys.map((k) => k.group))];
  return (
    <div className="stack">
      <p className="muted small">
        Keys live in <code>{data.data!.path}</code> (mode 0600). The page shows whether a key is set, never its value; a new value replaces the old one.
      </p>
      {groups.map((g) => (
        <div key={g} className="card">
          <div className="label">{g}</div>
          <table className="table keys">
            <tbody>
              {data.data!.keys
                .filter((k) => k.group === g)
                .map((k) => (
                  <tr key={k.name}>
                    <td className="mono">{k.name}</td>
                    <td className="muted small">{k.description}</td>
                    <td>{k.set ? <Badge kind="ok">set {k.preview}</Badge> : <Badge>not set</Badge>}</td>
                    <td>
                      <form className="row" onSubmit={(e) => (e.preventDefault(), values[k.name] && void save(k.name, values[k.name]))}>
                        <input type="password" autoComplete="off" placeholder={k.set ? 'replace…' : 'paste key…'} value={values[k.name] ?? ''} onChange={(e) => setValues({ ...values, [k.name]: e.target.value })} aria-label={`Value for ${k.name}`} />
                        <button className="btn small" disabled={!values[k.name]}>
                          Save
                        </button>
                        {k.where === 'file' && (
                          <button type="button" className="btn small danger" onClick={() => setRemoving(k.name)}>
                            Remove
                          </button>
                        )}
                      </form>
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      ))}
      <form className="card row wrap" onSubmit={(e) => (e.preventDefault(), void save(newName.trim(), newValue).then(() => (setNewName(''), setNewValue(''))))}>
        <span className="label">Another key</span>
        <input placeholder="NAME_OF_KEY" value={newName} onChange={(e) => setNewName(e.target.value.toUpperCase())} aria-label="New key name" />
        <input type="password" placeholder="value" value={newValue} onChange={(e) => setNewValue(e.target.value)} aria-label="New key value" />
        <button className="btn" disabled={!newName || !newValue}>
          Add
        </button>
      </form>
      {removing && (
        <Confirm
          text={`Remove ${removing} from .env?`}
          yes="Remove"
          onNo={() => setRemoving(null)}
          onYes={async () => {
            const name = removing;
            setRemoving(null);
            try {
              await del(`/api/env/${name}`);
              toast(`${name} removed.`);
              qc.invalidateQueries({ queryKey: ['env'] });
            } catch (e) {
              toast(failText(e), 'error');
            }
          }}
        />
      )}
    </div>
  );
}

function show(v: unknown): string {
  if (v === null || v === undefined) return 'auto';
  if (typeof v === 'string') return v === '' ? '(empty)' : v;
  return JSON.stringify(v);
}

function Settings() {
  const toast = useToast();
  const qc = useQueryClient();
  const data = useQuery({ queryKey: ['config'], queryFn: () => api<ConfigResponse>('/api/config') });
  const [section, setSection] = useState('model');
  const [edits, setEdits] = useState<Record<string, unknown>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [filter, setFilter] = useState('');
  const sections = useMemo(() => [...new Set((data.data?.schema ?? []).map((f) => f.section))], [data.data]);
  if (data.isLoading) return <Loading what="settings" />;
  if (data.isError) return <ErrorBox error={data.error} retry={() => data.refetch()} />;
  const d = data.data!;
  const fields = d.schema.filter((f) => (filter ? f.key.includes(filter.toLowerCase()) : f.section === section));
  const dirty = Object.keys(edits);
  const value = (f: Field) => (f.key in edits ? edits[f.key] : d.values[f.key]);
  const save = async (reset: string[] = []) => {
    try {
      const r = await put<{ saved: string[]; problems: unknown[] }>('/api/config', { changes: edits, reset });
      setEdits({});
      setErrors({});
      toast(r.saved.length ? `Saved ${r.saved.join(', ')} to config.yaml.` : 'Nothing to save.');
      qc.invalidateQueries();
    } catch (e) {
      if (e instanceof ApiError && e.errors) setErrors(e.errors);
      toast(failText(e), 'error');
    }
  };
  return (
    <div className="settings">
      <aside className="sections">
        <input type="search" placeholder="Find a setting…" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Find a setting" />
        {sections.map((s) => (
          <button key={s} className={s === section && !filter ? 'section active' : 'section'} onClick={() => (setSection(s), setFilter(''))}>
            {s}
          </button>
        ))}
      </aside>
      <div className="stack">
        <div className="muted small">
          Editing <code>{d.path}</code>; comments in the file are kept. Changes apply to new sessions (and the gateway after a restart).
        </div>
        {d.problems.map((p) => (
          <div key={p.key} className="state warn small">
            {p.key}: {p.message}
            {p.line ? ` (line ${p.line})` : ''}
          </div>
        ))}
        {!fields.length && <Empty title="No setting matches." />}
        <div className="fields">
          {fields.map((f) => {
            const v = value(f);
            const setV = (x: unknown) => setEdits({ ...edits, [f.key]: x });
            const isSet = d.set.includes(f.key);
            return (
              <div key={f.key} className={`field${f.key in edits ? ' dirty' : ''}`} data-key={f.key}>
                <div className="row between">
                  <label htmlFor={`f-${f.key}`} className="mono">
                    {f.key}
                  </label>
                  <span className="muted small">
                    default {show(f.default)}
                    {isSet && (
                      <button className="link" onClick={() => void save([f.key])} title="Remove from config.yaml (back to the default)">
                        reset
                      </button>
                    )}
                  </span>
                </div>
                {f.readOnly ? (
                  <pre className="small">{JSON.stringify(v, null, 2)}</pre>
                ) : f.type === 'boolean' ? (
                  <input id={`f-${f.key}`} type="checkbox" checked={!!v} onChange={(e) => setV(e.target.checked)} />
                ) : f.options ? (
                  <select id={`f-${f.key}`} value={String(v ?? '')} onChange={(e) => setV(e.target.value)}>
                    {f.options.map((o) => (
                      <option key={o} value={o}>
                        {o || '(empty)'}
                      </option>
                    ))}
                  </select>
                ) : f.type === 'list' ? (
                  <textarea id={`f-${f.key}`} rows={2} value={Array.isArray(v) ? v.join('\n') : String(v ?? '')} onChange={(e) => setV(e.target.value.split('\n'))} placeholder="one per line" />
                ) : (
                  <input
                    id={`f-${f.key}`}
                    type={f.secret ? 'password' : f.type === 'number' ? 'number' : 'text'}
                    value={v === null || v === undefined ? '' : String(v)}
                    placeholder={f.nullable ? 'auto' : ''}
                    onChange={(e) => setV(f.type === 'number' && e.target.value !== '' ? Number(e.target.value) : e.target.value === '' && f.nullable ? null : e.target.value)}
                  />
                )}
                {errors[f.key] && <div className="error small">{errors[f.key]}</div>}
              </div>
            );
          })}
        </div>
        <div className="savebar row">
          <button className="btn primary" disabled={!dirty.length} onClick={() => void save()}>
            Save {dirty.length ? `${dirty.length} change${dirty.length === 1 ? '' : 's'}` : ''}
          </button>
          {dirty.length > 0 && (
            <button className="btn" onClick={() => (setEdits({}), setErrors({}))}>
              Discard
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
