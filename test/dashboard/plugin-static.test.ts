// A dashboard plugin's static files: served from its dashboard/ folder, but never through a link that
// leads outside it (a `dist/leak.json` linked to ~/.hermes/.env must not hand out the keys).
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { homeWithModel } from '../helpers/cli.ts';
import { startDashboardProcess, type RunningDash } from '../helpers/dashboard.ts';

const KEY = 'sk-or-v1-plugin-static-secret-0123456789abcdef';

describe('dashboard plugin static files', { timeout: 120_000 }, () => {
  let home: string;
  let dash: RunningDash;
  const get = async (path: string) => {
    const r = await fetch(`${dash.origin}${path}`, { headers: { cookie: `hermes_dashboard=${dash.token}` } });
    return { status: r.status, body: await r.text() };
  };

  before(async () => {
    home = homeWithModel('http://127.0.0.1:9/v1');
    writeFileSync(join(home, '.env'), `OPENROUTER_API_KEY=${KEY}\n`, { mode: 0o600 });
    const dir = join(home, 'plugins', 'tabby', 'dashboard');
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ name: 'tabby', label: 'Tabby', tab: { path: '/tabby' }, entry: 'dist/index.js' }));
    writeFileSync(join(dir, 'dist', 'index.js'), 'window.__tabby = 1;\n');
    symlinkSync(join(home, '.env'), join(dir, 'dist', 'leak.json'));
    symlinkSync('../../../../.env', join(dir, 'dist', 'up.js'));
    symlinkSync('index.js', join(dir, 'dist', 'same.js'));
    dash = await startDashboardProcess(home);
  });
  after(async () => {
    await dash?.stop();
  });

  it('serves the plugin’s own files, and a link that stays inside its folder', async () => {
    const r = await get('/plugins/tabby/dist/index.js');
    assert.equal(r.status, 200);
    assert.match(r.body, /__tabby/);
    assert.equal((await get('/plugins/tabby/dist/same.js')).status, 200);
  });

  it('refuses a link that leads outside the plugin’s folder (absolute or relative)', async () => {
    for (const p of ['/plugins/tabby/dist/leak.json', '/plugins/tabby/dist/up.js']) {
      const r = await get(p);
      assert.equal(r.status, 404, p);
      assert.ok(!r.body.includes(KEY), `${p} must not show the key`);
    }
    // Plain traversal is refused too.
    assert.equal((await get('/plugins/tabby/..%2F..%2F..%2F.env')).status, 404);
  });
});
