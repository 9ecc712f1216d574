// A separate process adding pool entries to one auth.json (for the cross-process locking test).
import { addPoolEntry } from '../../src/auth/pool.ts';
import { AuthStore } from '../../src/auth/store.ts';

const [home, name, count] = process.argv.slice(2);
const store = new AuthStore(home);
for (let i = 0; i < Number(count); i++) await store.update((d) => addPoolEntry(d, 'openrouter', { label: `${name}-${i}`, auth_type: 'api_key', source: 'manual', access_token: `sk-${name}-${i}` }));
