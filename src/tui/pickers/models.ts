// The model picker (/model without a name): the models the current provider serves (its `/models`
// list, the same lookup `hermes model` uses), and on Tab the providers you have a key for. Picking a
// model switches this session, as `/model provider:model` does. A typed name the provider does not
// serve is refused with the nearest names, as `/model <name>` does; when the provider cannot list its
// models, the typed name is used as it is.

import { findProvider } from '../../llm/index.ts';
import { existingKey, fetchModels, keyOptional, providerOptions, signedIn, type EndpointChoice } from '../../session/onboard.ts';
import { didYouMean } from '../../commands/suggest.ts';
import type { Session } from '../../session/session.ts';
import { ListState, type PickItem } from './list.ts';

export interface ModelChoice {
  provider: string;
  model: string;
  baseUrl?: string;
}

/** The provider id as config names it (custom endpoints resolve to `custom:<host>`). */
function configProvider(p: string): string {
  return p.startsWith('custom:') ? 'custom' : p;
}

export class ModelPicker {
  readonly kind = 'models';
  readonly list = new ListState();
  stage: 'models' | 'providers' = 'models';
  provider: EndpointChoice;
  loading = false;
  /** Why the list could not be loaded. */
  private loadError = '';
  /** Why the typed name was refused (until the next keystroke). */
  private refused = '';
  private models: { id: string; contextLength?: number }[] = [];
  private readonly session: Session;
  private readonly onChange: () => void;
  private request = 0;

  constructor(session: Session, onChange: () => void) {
    this.session = session;
    this.onChange = onChange;
    const rt = session.runtime;
    this.provider = { provider: configProvider(rt.provider), baseUrl: rt.isCustom ? rt.baseUrl : undefined, apiMode: rt.isCustom ? rt.apiMode : undefined };
    void this.load();
  }

  get error(): string {
    return this.refused || this.loadError;
  }

  get title(): string {
    return this.stage === 'models' ? `Model · ${this.provider.provider}${this.provider.baseUrl ? ` (${this.provider.baseUrl})` : ''}` : 'Provider';
  }

  get help(): string {
    return this.stage === 'models'
      ? 'type to filter (or a model name) · ↑↓ move · Enter switch this session · Tab providers · Esc close'
      : 'type to filter · ↑↓ move · Enter choose · Tab back to models · Esc close';
  }

  /** Loads the provider's model list (a network request with the provider's 5 s timeout). */
  async load(): Promise<void> {
    const id = ++this.request;
    this.loading = true;
    this.loadError = '';
    this.models = [];
    this.refresh();
    try {
      const list = await fetchModels(this.provider, this.session.info.env, this.session.settings.config);
      if (id !== this.request) return;
      this.models = list;
    } catch (e) {
      if (id !== this.request) return;
      this.loadError = `${(e as Error).message} Type a model name and press Enter to use it anyway.`;
    }
    this.loading = false;
    this.refresh();
    this.onChange();
  }

  refresh(): void {
    this.refused = '';
    const q = this.list.query.text.trim().toLowerCase();
    if (this.stage === 'models') {
      const current = this.session.runtime.model;
      const same = configProvider(this.session.runtime.provider) === this.provider.provider;
      const items: PickItem[] = this.models
        .filter((m) => !q || m.id.toLowerCase().includes(q))
        .map((m) => ({ key: m.id, label: m.id, hint: m.contextLength ? `${Math.round(m.contextLength / 1000)}k context` : '', current: same && m.id === current }));
      this.list.setItems(items, items.find((i) => i.current)?.key);
      return;
    }
    const cfg = this.session.settings.config;
    const env = this.session.info.env;
    const items: PickItem[] = [];
    for (const p of providerOptions(cfg, signedIn(env))) {
      if (p.value === 'custom') continue;
      const usable = p.named || existingKey({ provider: p.value }, env, cfg) || keyOptional({ provider: p.value }, cfg);
      if (!usable) continue;
      if (q && !p.label.toLowerCase().includes(q) && !`${p.value} ${p.search}`.toLowerCase().includes(q)) continue;
      items.push({ key: p.value, label: p.label, hint: p.hint, current: p.value === this.provider.provider });
    }
    const rt = this.session.runtime;
    if (rt.isCustom && (!q || 'custom'.includes(q) || rt.baseUrl.includes(q))) items.unshift({ key: 'custom', label: 'Custom endpoint', hint: rt.baseUrl, current: this.provider.provider === 'custom' });
    this.list.setItems(items, items.find((i) => i.current)?.key);
  }

  /** Tab: between the model list and the provider list. */
  toggleStage(): void {
    this.stage = this.stage === 'models' ? 'providers' : 'models';
    this.list.query.clear();
    this.refresh();
  }

  /** Enter: a provider opens its models; a model (or the typed name) is the choice. */
  pick(): ModelChoice | null {
    if (this.stage === 'providers') {
      const key = this.list.current?.key;
      if (!key) return null;
      const rt = this.session.runtime;
      this.provider = key === 'custom' ? { provider: 'custom', baseUrl: rt.baseUrl, apiMode: rt.apiMode } : { provider: key };
      this.stage = 'models';
      this.list.query.clear();
      void this.load();
      return null;
    }
    const typed = this.list.query.text.trim();
    const model = this.list.current?.key ?? typed;
    if (!model) return null;
    if (!this.list.current && this.loading) {
      this.refused = 'The model list is still loading…';
      return null;
    }
    if (!this.list.current && !this.loadError) {
      // The list loaded and nothing in it matches: the provider does not serve that model.
      const ids = this.models.map((m) => m.id);
      this.refused = `✗ ${typed} is not served by ${this.provider.provider}.${didYouMean(typed, ids)}`;
      return null;
    }
    return { provider: this.provider.provider, model, baseUrl: this.provider.baseUrl };
  }

  /** Applies a choice to the session; returns the line to show. */
  static apply(session: Session, c: ModelChoice): string {
    const same = configProvider(session.runtime.provider) === c.provider;
    const spec = findProvider(c.provider);
    session.switchModel(same ? { model: c.model } : { provider: c.provider, model: c.model, baseUrl: spec?.isCustom ? c.baseUrl : undefined });
    const rt = session.runtime;
    return `Now using ${rt.model} via ${rt.provider} for this session. (The provider's prompt cache starts cold.)`;
  }
}
