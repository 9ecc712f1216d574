// `hermes logs` and `hermes insights` as a person runs them, and the log lines a real run writes
// (Hermes's format, secrets redacted).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hermes, homeWithModel, tempHome } from '../helpers/cli.ts';
import { seedHome, seedLogs } from '../helpers/dashboard.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { createCommandRegistry } from '../../src/commands/builtin.ts';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import { formatInsightsShort, generateInsights } from '../../src/state/insights.ts';
import { estimateCostUsd } from '../../src/llm/pricing.ts';
import { readFrom, readTail } from '../../src/state/log-read.ts';
import { HermesLog } from '../../src/state/logs.ts';

const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL)( \[[^\]]+\])? [\w.]+: /;

describe('hermes logs', () => {
  let home: string;
  before(() => {
    home = tempHome();
    seedLogs(home);
  });

  it('shows the last lines of agent.log under a header', async () => {
    const r = await hermes(['logs'], { home });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /^--- .*\/logs\/agent\.log \(last 50\) ---$/);
    assert.equal(lines.length, 5);
    for (const l of lines.slice(1)) assert.match(l, LINE);
  });

  it('filters by level, component and session; errors.log holds warnings and worse', async () => {
    const err = await hermes(['logs', '--level', 'error'], { home });
    assert.match(err.stdout, /\[level>=ERROR\]/);
    assert.deepEqual(err.stdout.trim().split('\n').slice(1).map((l) => l.split(' ')[2]), ['ERROR']);
    const tools = await hermes(['logs', '--component', 'tools'], { home });
    assert.match(tools.stdout, /tools\.terminal: terminal failed/);
    assert.doesNotMatch(tools.stdout, /cron\.scheduler/);
    const sess = await hermes(['logs', '-n', '10', '--session', '20260101_090000_aaaaaa'], { home });
    assert.equal(sess.stdout.trim().split('\n').length, 3);
    const errors = await hermes(['logs', 'errors'], { home });
    assert.match(errors.stdout, /WARNING .*tools\.terminal/);
    assert.match(errors.stdout, /ERROR .*agent\.client/);
    assert.doesNotMatch(errors.stdout, / INFO /);
    const since = await hermes(['logs', '--since', '1h'], { home });
    assert.equal(since.stdout.trim().split('\n').length, 5);
  });

  it('lists the files, and says what is wrong with bad input', async () => {
    const list = await hermes(['logs', 'list'], { home });
    assert.match(list.stdout, /agent\.log\s+\d+(\.\d)?(B|KB)/);
    assert.match(list.stdout, /errors\.log/);
    const unknown = await hermes(['logs', 'nope'], { home });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^hermes: Unknown log "nope"\. Available: agent, errors, gateway, gui, list\.$/m);
    const since = await hermes(['logs', '--since', 'yesterday'], { home });
    assert.equal(since.code, 2);
    assert.match(since.stderr, /Invalid --since "yesterday"\. Use a relative time like 30m, 1h or 2d\./);
    const comp = await hermes(['logs', '--component', 'kitchen'], { home });
    assert.match(comp.stderr, /Unknown component "kitchen"\. Available: agent, cli, cron, gateway, gui, tools\./);
    const none = await hermes(['logs', 'gateway'], { home });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /Log file not found: .*gateway\.log/);
  });

  it('reads only whole new lines after an offset, and a long tail backwards', () => {
    const h = tempHome();
    const log = new HermesLog(h, {});
    for (let i = 0; i < 3000; i++) log.write('INFO', 'agent.loop', `line ${i}`);
    log.flush(); // lines of one event-loop tick are written together
    const path = join(h, 'logs', 'agent.log');
    const tail = readTail(path, 5);
    assert.deepEqual(tail.map((l) => l.split(': ')[1]), ['line 2995', 'line 2996', 'line 2997', 'line 2998', 'line 2999']);
    const size = readFrom(path, 0).size;
    log.write('WARNING', 'tools.x', 'new one');
    log.flush();
    const r = readFrom(path, size);
    assert.equal(r.lines.length, 1);
    assert.match(r.lines[0], /WARNING tools\.x: new one$/);
  });
});

describe('log lines of a real run', () => {
  let fake: FakeLlm;
  before(async () => {
    fake = await startFakeLlm();
  });
  after(async () => {
    await fake.close();
  });

  it('a one-shot with a tool call writes agent.log in Hermes format, redacted', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123' } }] }, { text: 'done' });
    const r = await hermes(['chat', '-q', 'print the key', '--yolo'], { home });
    assert.equal(r.code, 0, r.stderr);
    const log = readFileSync(join(home, 'logs', 'agent.log'), 'utf8');
    const lines = log.trim().split('\n');
    for (const l of lines) assert.match(l, LINE, l);
    assert.ok(lines.some((l) => / INFO \[\d{8}_\d{6}_[0-9a-f]{6}\] tools\.terminal: terminal started: echo OPENAI_API_KEY=/.test(l)));
    assert.ok(lines.some((l) => /agent\.loop: turn completed: 2 API call\(s\)/.test(l)));
    assert.ok(!log.includes('sk-proj-abcdefghijklmnopqrstuvwxyz0123'), 'the key is redacted');
  });
});

describe('hermes insights', () => {
  let home: string;
  before(() => {
    home = tempHome();
    seedHome(home);
  });

  it('reports sessions, tokens, cost, models, sources and tools', async () => {
    const r = await hermes(['insights'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Hermes insights — last 30 days/);
    assert.match(r.stdout, /Sessions\s+5\s/);
    assert.match(r.stdout, /Cost\s+\$0\.06/);
    assert.match(r.stdout, /claude-sonnet-4\s+2\s/);
    assert.match(r.stdout, /telegram\s+1\s/);
    assert.match(r.stdout, /terminal\s+1\s/);
  });

  it('narrows by days and source; JSON for scripts; a bad --days is refused', async () => {
    const day = JSON.parse((await hermes(['insights', '--days', '1', '--json'], { home })).stdout) as { overview: { sessions: number }; daily: unknown[] };
    assert.equal(day.overview.sessions, 1);
    assert.equal(day.daily.length, 1);
    const tg = JSON.parse((await hermes(['insights', '--source', 'telegram', '--json'], { home })).stdout) as { overview: { sessions: number }; sources: { source: string }[] };
    assert.equal(tg.overview.sessions, 1);
    assert.deepEqual(tg.sources.map((s) => s.source), ['telegram']);
    const bad = await hermes(['insights', '--days', '0'], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--days needs a whole number of days, 1 or more/);
    const empty = await hermes(['insights'], { home: tempHome() });
    assert.match(empty.stdout, /No sessions yet/);
  });

  it('/insights is a slash command on every surface, short on chat platforms', async () => {
    const reg = createCommandRegistry({ home });
    const def = reg.list('gateway').find((d) => d.name === 'insights');
    assert.ok(def);
    const db = SessionDB.open(join(home, 'state.db'));
    try {
      const short = formatInsightsShort(await generateInsights(new SqliteSessionStore(db), { days: 7, price: estimateCostUsd }));
      assert.match(short, /Sessions: 5 · messages: 18 · tool calls: 4/);
      assert.match(short, /Cost: \$0\.06/);
    } finally {
      db.close();
    }
  });
});
