// A session that already has a title keeps it, whichever state store holds it: the lookup goes
// through the store interface (awaited), so the PostgreSQL store (state.backend: postgres) is asked
// like state.db, and no title_generation request is made for it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SessionDB } from '../../src/state/db.ts';
import { SqliteSessionStore } from '../../src/state/store/sqlite.ts';
import type { SessionStore } from '../../src/state/store/types.ts';
import { postgresUnavailable, startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { harness } from './helpers.ts';

const skipPg = postgresUnavailable();
if (skipPg) console.log(`# PostgreSQL case skipped: ${skipPg}`);

let cluster: PgCluster | null = null;
before(async () => {
  if (!skipPg) cluster = await startPostgres();
});
after(() => cluster?.stop());

const backends: { name: string; skip: string | false; open(): Promise<{ store: SessionStore; close(): Promise<void> }> }[] = [
  {
    name: 'sqlite',
    skip: false,
    async open() {
      const db = SessionDB.open(join(mkdtempSync(join(tmpdir(), 'hermes-title-')), 'state.db'));
      return { store: new SqliteSessionStore(db), close: async () => db.close() };
    },
  },
  {
    name: 'postgres',
    skip: skipPg ?? false,
    async open() {
      const { PgSessionStore } = await import('../../src/state/store/postgres/sessions.ts');
      const store = await PgSessionStore.open(await cluster!.createDatabase('titles'));
      return { store, close: () => store.close() };
    },
  },
];

for (const b of backends) {
  describe(`session titles on the ${b.name} store`, { skip: b.skip }, () => {
    test('an existing title is kept and none is generated; a new session gets one', async () => {
      const { store, close } = await b.open();
      try {
        await store.createSession({ id: 'titled-1', source: 'telegram', model: 'test/model', systemPrompt: 'SYS' });
        await store.setTitle('titled-1', 'Kept title');
        const h = harness({
          steps: [{ text: 'hello again' }],
          aux: { title_generation: [{ text: 'A Generated Title' }] },
          session: { store: store as never, sessionId: 'titled-1' },
        });
        await h.session.prompt('hi');
        await h.session.idle();
        assert.equal(h.aux.title_generation.length, 0, 'no title request for a titled session');
        assert.equal((await store.getSession('titled-1'))?.title, 'Kept title');

        const fresh = harness({
          steps: [{ text: 'nice to meet you' }],
          aux: { title_generation: [{ text: 'A Generated Title' }] },
          session: { store: store as never },
        });
        await fresh.session.prompt('hello');
        await fresh.session.idle();
        assert.equal(fresh.aux.title_generation.length, 1);
        assert.equal((await store.getSession(fresh.session.id))?.title, 'A Generated Title');
      } finally {
        await close();
      }
    });
  });
}
