// Holographic: local memory with no service. Facts live in SQLite ($HERMES_HOME/memory_store.db,
// Hermes's schema) with FTS5 search, entity links and trust scores (holographic-store.ts). Config:
// config.yaml `plugins.hermes-memory-store` {db_path, auto_extract, default_trust}.
import { join } from 'node:path';
import type { Message } from '../../llm/types.ts';
import { expandHome } from '../../state/paths.ts';
import { cleanForCapture, int, num, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';
import { FactStore, type Fact } from './holographic-store.ts';

const ACTIONS = ['add', 'search', 'probe', 'related', 'reason', 'contradict', 'update', 'remove', 'list'];
const show = (f: Fact) => ({ fact_id: f.fact_id, content: f.content, category: f.category, tags: f.tags, trust: Math.round(f.trust_score * 100) / 100 });

/** Lasting statements worth keeping when auto_extract is on (preferences, identity, tools). */
const EXTRACT = /\b(i (?:prefer|like|love|hate|use|always|never|work (?:on|at|with))|my (?:name|role|job|team|project|favou?rite) (?:is|are)|call me|we use|our (?:stack|team|project) (?:is|uses))\b/i;

function settings(e: ProviderEnv): Record<string, unknown> {
  const plugins = (e.config as unknown as { plugins?: Record<string, Record<string, unknown>> }).plugins ?? {};
  return plugins['hermes-memory-store'] ?? {};
}

function create(e: ProviderEnv): ExternalMemoryProvider {
  const s = settings(e);
  const dbPath = typeof s.db_path === 'string' && s.db_path.trim() ? expandHome(s.db_path.trim()) : join(e.home, 'memory_store.db');
  const trust = Number(s.default_trust ?? 0.5);
  const autoExtract = s.auto_extract === true;
  let store: FactStore | null = null;
  const db = () => (store ??= new FactStore(dbPath, Number.isFinite(trust) ? trust : 0.5));

  return {
    name: 'holographic',
    isAvailable: () => true,
    systemPromptBlock: () =>
      '# Holographic memory\nA local fact store. fact_store: add (save a durable fact), search, probe (all facts about an entity), related, reason (facts linking several entities), contradict, update, remove, list. fact_feedback rates a recalled fact helpful or unhelpful (trains trust).',
    toolSchemas: () => [
      toolSchema(
        'fact_store',
        'Manage the local fact store: add, search, probe, related, reason, contradict, update, remove, list.',
        {
          action: str('What to do', ACTIONS),
          content: str('add / update: the fact text'),
          query: str('search: what to look for'),
          entity: str('probe / related: the entity (person, project, tool …)'),
          entities: str('reason: entities separated by commas'),
          fact_id: int('update / remove: the fact id'),
          category: str('add / list / search: a category (default general)'),
          tags: str('add / update: comma-separated tags'),
          limit: int('Max results'),
        },
        ['action'],
      ),
      toolSchema('fact_feedback', 'Rate a recalled fact: helpful raises its trust (+0.05), unhelpful lowers it (-0.10).', { action: str('helpful or unhelpful', ['helpful', 'unhelpful']), fact_id: int('The fact id'), trust_delta: num('unused') }, ['action', 'fact_id']),
    ],
    handleToolCall(name, a) {
      const st = db();
      const limit = Math.max(1, Math.min(100, Number(a.limit) || 10));
      if (name === 'fact_feedback') {
        const f = st.feedback(Number(a.fact_id), a.action === 'helpful');
        return f ? toolOk({ success: true, fact: show(f) }) : toolErr(`No fact with id ${a.fact_id}.`);
      }
      if (name !== 'fact_store') return toolErr(`unknown tool ${name}`);
      switch (a.action) {
        case 'add': {
          if (!a.content) return toolErr('add needs content');
          const r = st.add(String(a.content), a.category ? String(a.category) : 'general', a.tags ? String(a.tags) : '');
          return toolOk({ success: true, fact_id: r.id, ...(r.duplicate ? { note: 'already stored' } : {}) });
        }
        case 'search': {
          const r = st.search(String(a.query ?? a.content ?? ''), { category: a.category ? String(a.category) : undefined, limit });
          return toolOk({ results: r.map(show), count: r.length });
        }
        case 'probe':
          return toolOk({ entity: a.entity, facts: st.probe(String(a.entity ?? ''), limit).map(show) });
        case 'related':
          return toolOk({ entity: a.entity, related: st.related(String(a.entity ?? ''), limit).map(show) });
        case 'reason': {
          const list = String(a.entities ?? a.entity ?? '').split(',').map((x) => x.trim()).filter(Boolean);
          if (!list.length) return toolErr('reason needs entities (comma-separated)');
          return toolOk({ entities: list, facts: st.reason(list, limit).map(show) });
        }
        case 'contradict':
          return toolOk({ contradictions: st.contradictions(limit).map((c) => ({ entity: c.entity, a: show(c.a), b: show(c.b) })) });
        case 'update': {
          const ok = st.update(Number(a.fact_id), { content: a.content ? String(a.content) : undefined, tags: a.tags !== undefined ? String(a.tags) : undefined, category: a.category ? String(a.category) : undefined });
          return ok ? toolOk({ success: true, fact: show(st.get(Number(a.fact_id))!) }) : toolErr(`No fact with id ${a.fact_id}.`);
        }
        case 'remove':
          return st.remove(Number(a.fact_id)) ? toolOk({ success: true, removed: a.fact_id }) : toolErr(`No fact with id ${a.fact_id}.`);
        case 'list':
          return toolOk({ facts: st.list({ category: a.category ? String(a.category) : undefined, limit }).map(show), total: st.count() });
        default:
          return toolErr(`Unknown action "${String(a.action)}". Use one of: ${ACTIONS.join(', ')}.`);
      }
    },
    prefetch(query) {
      const r = db().search(query.slice(0, 500), { limit: 6 });
      return r.length ? `## Holographic facts\n${r.map((f) => `- [#${f.fact_id}, trust ${f.trust_score.toFixed(2)}] ${f.content}`).join('\n')}` : undefined;
    },
    onMemoryWrite(action, target, content) {
      if (action === 'add' && content.trim()) db().add(content.trim(), target === 'user' ? 'user' : 'general');
    },
    onSessionEnd(messages: readonly Message[]) {
      if (!autoExtract) return;
      for (const m of messages) {
        if (m.role !== 'user' || typeof m.content !== 'string') continue;
        for (const sentence of cleanForCapture(m.content).split(/(?<=[.!?])\s+|\n+/))
          if (EXTRACT.test(sentence) && sentence.length <= 300) db().add(sentence.trim(), 'user');
      }
    },
    shutdown() {
      store?.close();
      store = null;
    },
    async healthCheck() {
      const n = db().count();
      return `local store ${dbPath} · ${n} fact${n === 1 ? '' : 's'}`;
    },
    describe: () => ({ db_path: dbPath, auto_extract: String(autoExtract), default_trust: String(trust) }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'holographic',
  description: 'Holographic: local SQLite fact store with FTS5 search, entity links and trust scores (no service)',
  fields: [],
  create,
  saveConfig(values, _home, config) {
    const c = config as unknown as { plugins?: Record<string, Record<string, unknown>> };
    c.plugins ??= {};
    c.plugins['hermes-memory-store'] = { ...(c.plugins['hermes-memory-store'] ?? {}), ...values };
  },
};
export default factory;
