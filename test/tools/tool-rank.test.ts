// test-timeout: 30
// tool_search ranking: BM25 over name, toolset, description and parameter names with a Porter-style
// stemmer, measured on a fixed set of queries a model sends, against the keyword scoring it replaced
// (kept below as the baseline). Every query must find its tool in the top 3 with BM25; the test prints
// both hit rates, and BM25 must do at least as well as the baseline.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/tools/builtin.ts';
import { rankBm25, stem, terms } from '../../src/tools/tool-rank.ts';
import { selectTools, type CatalogEntry } from '../../src/tools/defs/tool-search.ts';

const registry = builtinRegistry();
/** Every built-in tool as tool_search sees it: its real name, toolset, description and parameters. */
const catalog: CatalogEntry[] = registry.all().map((d) => ({ name: d.name, toolset: d.toolset, description: d.description, params: Object.keys((registry.schemaOf(d).properties as object | undefined) ?? {}) }));

/** The scoring tool_search used before BM25: name words 3 (prefix 2), description words 1. */
function baseline(entries: CatalogEntry[], query: string, limit: number): CatalogEntry[] {
  const words = (s: string) => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
  const q = words(query);
  return entries
    .map((e) => {
      const name = words(`${e.name} ${e.toolset}`);
      const desc = words(e.description);
      let score = 0;
      for (const t of q) {
        if (name.some((w) => w === t)) score += 3;
        else if (name.some((w) => w.startsWith(t) || t.startsWith(w))) score += 2;
        if (desc.includes(t)) score += 1;
      }
      return { e, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((x) => x.e);
}

/** Queries as a model phrases them, and the tool each one wants. */
const QUERIES: [string, string][] = [
  ['send a message to slack', 'send_message'],
  ['read a pdf', 'read_file'],
  ['schedule a job', 'cronjob'],
  ['search the web', 'web_search'],
  ['scheduling recurring tasks', 'cronjob'],
  ['take a screenshot of the page and describe it', 'browser_vision'],
  ['click a button on the website', 'browser_click'],
  ['type text into a form field', 'browser_type'],
  ['open a url in the browser', 'browser_navigate'],
  ['turn on the kitchen lights', 'ha_call_service'],
  ['list smart home devices', 'ha_list_entities'],
  ['generate an image from a prompt', 'image_generate'],
  ['convert text to speech audio', 'text_to_speech'],
  ['analyze a picture', 'vision_analyze'],
  ['edit a file by replacing text', 'patch'],
  ['run a shell command', 'terminal'],
  ['find files matching a pattern', 'search_files'],
  ['remember this fact for later', 'memory'],
  ['search past conversations', 'session_search'],
  ['delegate work to a subagent', 'delegate_task'],
  ['extract the content of a web page', 'web_extract'],
  ['ask the user a question', 'clarify'],
  ['create a kanban card', 'kanban_create'],
  ['browser console errors', 'browser_console'],
];

describe('tool_search ranking', () => {
  it('every query finds its tool in the top 3 with BM25; the hit rate is at least the old scoring\'s', () => {
    for (const [, want] of QUERIES) assert.ok(catalog.some((e) => e.name === want), `no tool ${want}`);
    const hits = (rank: (q: string) => CatalogEntry[]) => QUERIES.filter(([q, want]) => rank(q).some((e) => e.name === want));
    const newHits = hits((q) => selectTools(catalog, q, 3));
    const oldHits = hits((q) => baseline(catalog, q, 3));
    const missed = QUERIES.filter((x) => !newHits.includes(x)).map(([q, want]) => `"${q}" → ${want}: got ${selectTools(catalog, q, 3).map((e) => e.name).join(', ')}`);
    console.log(`tool_search top-3 hit rate over ${QUERIES.length} queries (${catalog.length} tools): keyword scoring ${oldHits.length}/${QUERIES.length}, BM25 + stemming ${newHits.length}/${QUERIES.length}`);
    const oldMissed = QUERIES.filter((x) => !oldHits.includes(x)).map(([q]) => q);
    if (oldMissed.length) console.log(`  missed by keyword scoring: ${oldMissed.join('; ')}`);
    assert.deepEqual(missed, []);
    assert.ok(newHits.length >= oldHits.length);
  });

  it('stems English words to shared roots and drops stop words', () => {
    assert.deepEqual(['scheduling', 'scheduled', 'schedules'].map(stem), ['schedul', 'schedul', 'schedul']);
    assert.deepEqual(['relational', 'hopefulness', 'ponies', 'caresses', 'hopping'].map(stem), ['relat', 'hope', 'poni', 'caress', 'hop']);
    assert.deepEqual(terms('Send the messages to my Slack_channel'), ['send', 'messag', 'slack', 'channel']);
  });

  it('rare words outweigh common ones, long descriptions are normalised, and a tool matching nothing is not returned', () => {
    const docs = [
      { name: 'alpha', toolset: 'x', description: 'open the file and read the file' },
      { name: 'beta', toolset: 'x', description: 'open a spreadsheet' },
      { name: 'gamma', toolset: 'x', description: 'open a door' },
    ];
    // beta has the rare word; of the two matching only "open", the shorter description ranks first.
    assert.deepEqual(rankBm25(docs, 'open spreadsheets').map((r) => r.doc.name), ['beta', 'gamma', 'alpha']);
    assert.deepEqual(rankBm25(docs, 'kubernetes'), []);
    assert.deepEqual(rankBm25(docs, 'the a of'), []);
  });
});
