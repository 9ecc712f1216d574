// Child process for db.test.ts: appends messages to a session, one commit each.
// argv: <db path> <session id> <count> [announce]  — with `announce`, prints "ok <i>" after each commit.
import { SessionDB } from '../../src/state/db.ts';

const [path, id, count, announce] = process.argv.slice(2);
const db = SessionDB.open(path);
db.createSession({ id, source: 'cli', model: 'writer' });
for (let i = 0; i < Number(count); i++) {
  db.appendMessage(id, { role: i % 2 ? 'assistant' : 'user', content: `writer ${id} message ${i}` });
  if (announce) process.stdout.write(`ok ${i}\n`);
}
db.close();
