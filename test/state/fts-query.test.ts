import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasCjk, sanitizeFtsQuery } from '../../src/state/fts-query.ts';
import { sqlite } from '../../src/state/sqlite.ts';

test('keeps plain words, phrases, prefixes and operators', () => {
  assert.equal(sanitizeFtsQuery('docker compose'), 'docker compose');
  assert.equal(sanitizeFtsQuery('"exact phrase" other'), '"exact phrase" other');
  assert.equal(sanitizeFtsQuery('sqli*'), 'sqli*');
  assert.equal(sanitizeFtsQuery('cats OR dogs'), 'cats OR dogs');
  assert.equal(sanitizeFtsQuery('cats NOT dogs'), 'cats NOT dogs');
});

test('quotes hyphenated and dotted terms', () => {
  assert.equal(sanitizeFtsQuery('chat-send'), '"chat-send"');
  assert.equal(sanitizeFtsQuery('config.yaml setup'), '"config.yaml" setup');
  assert.equal(sanitizeFtsQuery('content:secret'), '"content:secret"');
});

test('drops unmatched quotes, dangling operators and pure punctuation', () => {
  assert.equal(sanitizeFtsQuery('"unclosed phrase'), 'unclosed phrase');
  assert.equal(sanitizeFtsQuery('OR cats AND'), 'cats');
  assert.equal(sanitizeFtsQuery('cats OR OR dogs'), 'cats OR dogs');
  assert.equal(sanitizeFtsQuery('NOT'), '');
  assert.equal(sanitizeFtsQuery('--- ??? ((('), '');
  assert.equal(sanitizeFtsQuery('(grouped)'), 'grouped');
  assert.equal(sanitizeFtsQuery('say "he said ""hi"""'), 'say "he said" "hi"');
});

test('every sanitized query is valid FTS5', () => {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE VIRTUAL TABLE t USING fts5(content)');
  db.exec("INSERT INTO t VALUES ('the chat-send tool failed with error 42 in config.yaml')");
  const nasty = ['"', '""', 'a"b', 'foo AND', 'AND OR NOT', 'x:y:z', 'a-b-c*', '*', 'é-à', 'NEAR(a b)', '{a}', 'a^b', 'rm -rf /', "it's", 'c++', '#tag @user', 'x NOT', '"a" OR "b" NOT'];
  for (const q of nasty) {
    const s = sanitizeFtsQuery(q);
    if (!s) continue;
    assert.doesNotThrow(() => db.prepare('SELECT * FROM t WHERE t MATCH ?').all(s), `query ${JSON.stringify(q)} → ${s}`);
  }
  assert.equal(db.prepare('SELECT count(*) n FROM t WHERE t MATCH ?').get(sanitizeFtsQuery('chat-send'))!.n, 1);
  assert.equal(db.prepare('SELECT count(*) n FROM t WHERE t MATCH ?').get(sanitizeFtsQuery('config.yaml'))!.n, 1);
  db.close();
});

test('detects CJK', () => {
  assert.equal(hasCjk('数据库 search'), true);
  assert.equal(hasCjk('plain'), false);
});
