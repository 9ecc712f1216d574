// Maintenance paths from issue 13 §3: a checkpoint before a file edit (first and incremental, on a
// 2,000-file project), `hermes backup` / `hermes import` of a seeded home (state.db with 20,000
// messages + 1,000 files), `hermes -z` end to end against the fake LLM, and the skill content hash.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../src/state/checkpoints.ts';
import { SessionDB } from '../src/state/db.ts';
import { skillContentHash } from '../src/state/skills.ts';
import { BIN, cleanEnv } from '../test/helpers/cli.ts';
import { startFakeLlm } from '../test/helpers/fake-llm.ts';
import { median, timeCommand, type Bench, type BenchRow } from './lib.ts';

const ms = (f: () => unknown) => {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

function checkpointRows(): BenchRow[] {
  if (spawnSync('git', ['--version']).status !== 0) return [{ name: 'checkpoint', value: NaN, unit: '', note: 'git is not installed' }];
  const root = mkdtempSync(join(tmpdir(), 'bench-ckpt-'));
  const home = join(root, 'home');
  const proj = join(root, 'proj');
  for (let d = 0; d < 40; d++) {
    mkdirSync(join(proj, `src${d}`), { recursive: true });
    for (let f = 0; f < 50; f++) writeFileSync(join(proj, `src${d}`, `f${f}.ts`), `export const v${f} = ${'x'.repeat(200 + f)};\n`.repeat(20));
  }
  const store = new CheckpointStore(home);
  const first = ms(() => store.take(proj, 'before write_file'));
  const inc: number[] = [];
  for (let i = 0; i < 5; i++) {
    writeFileSync(join(proj, 'src0', 'f0.ts'), `changed ${i}\n`);
    inc.push(ms(() => store.take(proj, 'before patch')));
  }
  const none = ms(() => store.take(proj, 'nothing changed'));
  return [
    { name: 'checkpoint, first (2,000 files)', value: first, unit: 'ms', note: 'once per project, before the first edit' },
    { name: 'checkpoint, one file changed', value: median(inc), unit: 'ms', target: '≤ 300 ms', ok: median(inc) <= 300, note: 'median of 5; taken before each turn’s first edit' },
    { name: 'checkpoint, nothing changed', value: none, unit: 'ms' },
  ];
}

async function backupRows(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'bench-backup-'));
  writeFileSync(join(home, 'config.yaml'), 'model:\n  default: m\n');
  const db = SessionDB.open(join(home, 'state.db'));
  for (let s = 0; s < 100; s++) {
    const id = `20260101_000000_${String(s).padStart(6, '0')}`;
    db.createSession({ id, source: 'cli' });
    for (let m = 0; m < 200; m++) db.appendMessage(id, { role: m % 2 ? 'assistant' : 'user', content: `message ${m} of session ${s}: ${'lorem ipsum dolor sit amet '.repeat(8)}` });
  }
  db.close();
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(home, 'skills', `skill-${d}`, 'references'), { recursive: true });
    for (let f = 0; f < 50; f++) writeFileSync(join(home, 'skills', `skill-${d}`, 'references', `r${f}.md`), `# ref ${f}\n${'text '.repeat(300)}\n`);
  }
  const env = cleanEnv(home);
  const out = join(mkdtempSync(join(tmpdir(), 'bench-backup-out-')), 'b.zip');
  const b = await timeCommand(process.execPath, [BIN, 'backup', '-o', out], env);
  const size = statSync(out).size / 1024 / 1024;
  const dbMb = statSync(join(home, 'state.db')).size / 1024 / 1024;
  const target = mkdtempSync(join(tmpdir(), 'bench-import-'));
  const i = await timeCommand(process.execPath, [BIN, 'import', out, '--force'], cleanEnv(target));
  const rows: BenchRow[] = [
    { name: 'hermes backup (20k messages, 1,000 files)', value: b.ms, unit: 'ms', note: `state.db ${dbMb.toFixed(1)} MB → zip ${size.toFixed(1)} MB; exit ${b.code}${b.rssMb ? `; ${b.rssMb.toFixed(0)} MB RSS` : ''}` },
    { name: 'hermes import (same zip)', value: i.ms, unit: 'ms', note: `exit ${i.code}; ${readdirSync(target).length} entries restored at the top` },
  ];
  return rows;
}

async function oneshotRows(): Promise<BenchRow[]> {
  const fake = await startFakeLlm();
  try {
    fake.setHandler(() => ({ text: 'done' }));
    const home = mkdtempSync(join(tmpdir(), 'bench-z-'));
    writeFileSync(join(home, 'config.yaml'), `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: m\n  api_key: k\n`);
    const env = cleanEnv(home);
    const times: number[] = [];
    let rss: number | null = null;
    for (let i = 0; i < 5; i++) {
      const r = await timeCommand(process.execPath, [BIN, '-z', 'say done', '--usage-file', join(home, 'u.json')], env);
      times.push(r.ms);
      rss = r.rssMb;
    }
    return [{ name: 'hermes -z (fake LLM, one call)', value: median(times), unit: 'ms', note: `median of 5${rss ? `; ${rss.toFixed(0)} MB RSS` : ''}` }];
  } finally {
    await fake.close();
  }
}

function skillHashRows(): BenchRow[] {
  const root = mkdtempSync(join(tmpdir(), 'bench-skillhash-'));
  const dirs: string[] = [];
  for (let s = 0; s < 100; s++) {
    const d = join(root, `s${s}`);
    mkdirSync(join(d, 'scripts'), { recursive: true });
    writeFileSync(join(d, 'SKILL.md'), `---\nname: s${s}\ndescription: d\n---\n${'body '.repeat(400)}`);
    for (let f = 0; f < 5; f++) writeFileSync(join(d, 'scripts', `x${f}.sh`), 'echo hi\n'.repeat(100));
    dirs.push(d);
  }
  const t = ms(() => dirs.forEach((d) => skillContentHash(d)));
  return [{ name: 'skill content hash × 100 (6 files each)', value: t, unit: 'ms', note: '`skills check` / `update` per installed skill' }];
}

const bench: Bench = async () => [...checkpointRows(), ...(await backupRows()), ...(await oneshotRows()), ...skillHashRows()];
export default bench;
