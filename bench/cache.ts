// Prompt caching on the Anthropic wire (issue 30): the share of input tokens read from the cache,
// from the 2nd request of a session on (goal ≥ 90%). The fake LLM plays Anthropic's cache from the
// requests themselves: the prompt is the blocks in cache order (tools, system, then each message's
// content blocks), a `cache_control` breakpoint writes the prefix up to it (when it is at least
// 1,024 tokens), and a request reads the longest cached prefix that ends at or up to 20 blocks before
// one of its breakpoints. Tokens are serialized characters / 4. So the row measures what Hermes
// controls: where it puts its breakpoints and whether the prefix before them stays byte-identical
// from one request to the next (a timestamp or a reordered tool list in the system prompt shows as
// a miss). The session: one turn of 8 tool steps, then two `chat -c` turns of 3 steps each.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm, type FakeReply } from '../test/helpers/fake-llm.ts';
import { timeCommand, type Bench, type BenchRow } from './lib.ts';

const MIN_CACHEABLE = 1024;
const LOOKBACK = 20;

type Json = Record<string, unknown>;

/** The prompt as Anthropic caches it: one serialized string per block, and which carry a breakpoint. */
function blocks(body: Json): { text: string; mark: boolean }[] {
  const out: { text: string; mark: boolean }[] = [];
  const push = (b: unknown) => {
    if (typeof b === 'string') return out.push({ text: b, mark: false });
    const { cache_control: cc, ...rest } = b as Json;
    out.push({ text: JSON.stringify(rest), mark: !!cc });
  };
  for (const t of (body.tools as unknown[] | undefined) ?? []) push(t);
  const sys = body.system;
  if (typeof sys === 'string') push(sys);
  else for (const b of (sys as unknown[] | undefined) ?? []) push(b);
  for (const m of (body.messages as { role: string; content: unknown }[] | undefined) ?? []) {
    if (typeof m.content === 'string') push({ type: 'text', text: m.content, role: m.role });
    else for (const b of m.content as Json[]) push({ ...b, role: m.role });
  }
  return out;
}

/** Anthropic's prompt cache, simulated: prefix digests written at breakpoints. */
export class CacheSim {
  private readonly cached = new Set<string>();
  /** Input, cache-read and cache-write tokens of one request (and the cache updated). */
  request(body: Json): { input: number; cacheRead: number; cacheWrite: number } {
    const bs = blocks(body);
    const digests: string[] = [];
    const tokens: number[] = [];
    const h = createHash('sha256');
    let chars = 0;
    for (const b of bs) {
      h.update(b.text);
      h.update('\u0000');
      digests.push(h.copy().digest('hex'));
      chars += b.text.length;
      tokens.push(Math.ceil(chars / 4));
    }
    const total = tokens.at(-1) ?? 0;
    const marks = bs.flatMap((b, i) => (b.mark ? [i] : []));
    let read = -1;
    for (const m of marks) for (let i = m; i >= Math.max(0, m - LOOKBACK); i--) if (i > read && this.cached.has(digests[i])) read = i;
    const readTokens = read >= 0 ? tokens[read] : 0;
    const last = marks.at(-1);
    const writeTokens = last !== undefined && tokens[last] > readTokens ? tokens[last] - readTokens : 0;
    for (const m of marks) if (tokens[m] >= MIN_CACHEABLE) this.cached.add(digests[m]);
    return { input: total - readTokens - writeTokens, cacheRead: readTokens, cacheWrite: writeTokens };
  }
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-cache-'));
  const env = cleanEnv(home);
  delete env.HERMES_FROM_SOURCE;
  const fake = await startFakeLlm();
  try {
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-sonnet-4-6\n  api_key: k\nagent:\n  max_turns: 100\n`);
    const sim = new CacheSim();
    const seen: { input: number; cacheRead: number; cacheWrite: number }[] = [];
    const turn = async (args: string[], steps: number) => {
      let n = 0;
      fake.setHandler((req): FakeReply => {
        fake.requests.length = 0;
        // Auxiliary calls (titles) carry no tools: answered, not counted.
        if (req.wire !== 'anthropic' || !((req.body as Json).tools as unknown[] | undefined)?.length) return { text: 'ok' };
        const u = sim.request(req.body as Json);
        seen.push(u);
        return { ...(++n <= steps ? { toolCalls: [{ name: 'terminal', arguments: { command: `echo step ${n}` } }] } : { text: `done after ${steps} steps` }), usage: { ...u, output: 20 } };
      });
      const r = await timeCommand(process.execPath, [BIN, ...args, '--yolo'], env, home);
      fake.setHandler(null);
      if (r.code !== 0) throw new Error(`hermes ${args.join(' ')} failed (exit ${r.code})`);
    };
    await turn(['chat', '-q', 'run eight steps'], 8);
    await turn(['chat', '-c', '-q', 'three more'], 3);
    await turn(['chat', '-c', '-q', 'and three more'], 3);
    const later = seen.slice(1);
    const sum = (k: 'input' | 'cacheRead' | 'cacheWrite') => later.reduce((a, u) => a + u[k], 0);
    const all = sum('input') + sum('cacheRead') + sum('cacheWrite');
    const share = all ? (sum('cacheRead') / all) * 100 : NaN;
    rows.push({
      name: 'cache-read share of input tokens, Anthropic wire (2nd request on)',
      value: Math.round(share * 10) / 10,
      unit: '%',
      target: '≥ 90%',
      ok: share >= 90,
      note: `${later.length} requests after the first (3 turns: 8 + 3 + 3 tool steps); read ${sum('cacheRead')}, written ${sum('cacheWrite')}, uncached ${sum('input')} tokens (simulated cache)`,
    });
  } finally {
    await fake.close();
  }
  return rows;
};

export default bench;
