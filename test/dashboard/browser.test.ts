// The dashboard in a real browser (Debian's Chromium via playwright-core), as a person uses it:
// sign in with the printed link, find a conversation by a word in it, change the model, chat a
// turn in the terminal tab against the fake LLM and approve its dangerous command from the page,
// see the week's cost, pause a cron job, read the logs. Screenshots of every tab are saved under
// the test's temp dir (the path is printed).
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatedSuite } from '../helpers/skip.ts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { homeWithModel } from '../helpers/cli.ts';
import { chromiumMissing, launchChromium, screenshotDir, seedCron, seedHome, seedLogs, startDashboardProcess, type RunningDash } from '../helpers/dashboard.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';

const missing = chromiumMissing();
if (missing) console.log(`# skipping the dashboard browser tests: ${missing}`);

const { describe, it, before, after } = gatedSuite(missing);
describe('hermes dashboard in a browser', { timeout: 300_000 }, () => {
  let fake: FakeLlm;
  let home: string;
  let dash: RunningDash;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shots: string;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  before(async () => {
    fake = await startFakeLlm();
    fake.models = ['test-model', 'big-model', 'small-model'];
    home = homeWithModel(fake.openaiBaseUrl);
    appendFileSync(join(home, 'config.yaml'), '# kept: a comment of mine\ndisplay:\n  show_cost: false\n');
    seedHome(home);
    await seedCron(home);
    seedLogs(home);
    // In a folder of its own: the home's top level is sealed by the OS sandbox (it holds protected files).
    mkdirSync(join(home, 'work', 'scratch-dir'), { recursive: true });
    dash = await startDashboardProcess(home);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    shots = screenshotDir();
    console.log(`# dashboard screenshots: ${shots}`);
  });

  after(async () => {
    await browser?.close();
    await dash?.stop();
    await fake?.close();
  });

  it('asks for the token without it, and signs in with the printed link (HttpOnly, SameSite cookie)', async () => {
    const res = await page.goto(dash.url);
    assert.equal(res?.status(), 401);
    assert.match(await page.locator('body').innerText(), /Open the link `?hermes dashboard`? printed/);
    await page.goto(dash.loginUrl);
    assert.equal(new URL(page.url()).search, '', 'the token is dropped from the address bar');
    await page.getByRole('heading', { name: 'Status' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'hermes_dashboard');
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    await page.getByText('Birding trip').waitFor();
    await shot('status');
  });

  it('finds a conversation by a word in it and opens its transcript', async () => {
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.getByTestId('sessions-table').waitFor();
    assert.equal(await page.getByTestId('sessions-table').locator('tbody tr').count(), 5);
    await shot('sessions');
    await page.getByLabel('Search messages').fill('pelican');
    await page.getByLabel('Search messages').press('Enter');
    const results = page.getByTestId('search-results');
    await results.getByText('Birding trip').waitFor();
    assert.match(await results.locator('mark').first().innerText(), /pelican/i);
    await results.getByText('Birding trip').click();
    const detail = page.getByTestId('session-detail');
    await detail.getByRole('heading', { name: 'Birding trip' }).waitFor();
    const text = await detail.innerText();
    assert.match(text, /where can I see a pelican near Lisbon/);
    // Tool calls and reasoning are folded until opened.
    assert.equal(await detail.locator('details[open]').count(), 0);
    assert.ok((await detail.locator('details.call').count()) >= 1);
    await shot('session-detail');
  });

  it('renames a session', async () => {
    const detail = page.getByTestId('session-detail');
    await detail.getByRole('button', { name: 'Rename' }).click();
    await detail.getByLabel('Title').fill('Pelicans of Lisbon');
    await detail.getByRole('button', { name: 'Save' }).click();
    await detail.getByRole('heading', { name: 'Pelicans of Lisbon' }).waitFor();
  });

  it('changes the model in Config, and config.yaml changes (comments kept)', async () => {
    await page.goto(`${dash.url}config/model`);
    await page.getByTestId('current-model').waitFor();
    assert.equal(await page.getByTestId('current-model').innerText(), 'test-model');
    await page.getByRole('button', { name: 'List models' }).click();
    await page.getByTestId('model-list').getByRole('button', { name: 'big-model' }).click();
    await shot('config-model');
    await page.getByRole('button', { name: 'Save provider and model' }).click();
    // A server picked by URL is remembered by name in custom_providers, as Hermes does.
    await page.getByText(/model\.provider: custom:local-\d+, model\.default: big-model/).waitFor();
    const yaml = readFileSync(join(home, 'config.yaml'), 'utf8');
    assert.match(yaml, /default: big-model/);
    assert.match(yaml, /custom_providers:\n {2}- name: local-\d+\n/);
    assert.match(yaml, /# kept: a comment of mine/);
    await page.getByTestId('current-model').getByText('big-model').waitFor();
  });

  it('saves a setting from the generated form and refuses an invalid one', async () => {
    await page.goto(`${dash.url}config/settings`);
    await page.getByRole('button', { name: 'display', exact: true }).click();
    await page.locator('[data-key="display.show_cost"] input').check();
    await page.getByRole('button', { name: /^Save 1 change/ }).click();
    await page.getByText(/Saved display\.show_cost to config\.yaml/).waitFor();
    assert.match(readFileSync(join(home, 'config.yaml'), 'utf8'), /show_cost: true/);
    await page.getByRole('button', { name: 'agent', exact: true }).click();
    await page.locator('[data-key="agent.max_turns"] input').fill('-4');
    await page.getByRole('button', { name: /^Save 1 change/ }).click();
    await page.locator('[data-key="agent.max_turns"] .error').getByText(/cannot be negative/).waitFor();
    assert.doesNotMatch(readFileSync(join(home, 'config.yaml'), 'utf8'), /max_turns/);
    await shot('config-settings');
  });

  it('stores a key write-only: the page never gets its value back', async () => {
    await page.goto(`${dash.url}config/keys`);
    const secret = 'sk-or-v1-0123456789abcdefghijklmnopqrstuv';
    await page.getByLabel('Value for OPENROUTER_API_KEY').fill(secret);
    const [resp] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/env') && r.request().method() === 'PUT'), page.getByLabel('Value for OPENROUTER_API_KEY').press('Enter')]);
    assert.ok(!(await resp.text()).includes(secret), 'the response does not echo the key');
    await page.getByText('OPENROUTER_API_KEY saved.').waitFor();
    assert.match(readFileSync(join(home, '.env'), 'utf8'), new RegExp(`OPENROUTER_API_KEY=${secret}`));
    const listed = await page.evaluate(() => fetch('/api/env').then((r) => r.text()));
    assert.ok(!listed.includes(secret), 'the key list shows no value');
    assert.ok(!(await page.locator('body').innerText()).includes(secret));
    await shot('config-keys');
  });

  it('chats a turn in the terminal tab, shows the tool call, and approves the dangerous command from the page', async () => {
    fake.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf ./work/scratch-dir' } }] }, { text: 'Removed the scratch folder.' });
    await page.goto(`${dash.url}chat`);
    const term = page.getByTestId('terminal');
    await term.locator('.xterm-rows').getByText('Hermes Agent').waitFor({ timeout: 60_000 });
    await page.getByTestId('model-badge').getByText('big-model').waitFor({ timeout: 30_000 });
    await term.click();
    await page.keyboard.type('please clean up the scratch folder');
    await page.keyboard.press('Enter');
    const request = page.getByTestId('request');
    await request.getByText('rm -rf ./work/scratch-dir').waitFor({ timeout: 60_000 });
    await shot('chat-approval');
    await request.getByRole('button', { name: 'Approve once' }).click();
    const panel = page.getByTestId('tool-panel');
    await panel.locator('li.tool.ok').getByText('terminal').waitFor({ timeout: 60_000 });
    await term.locator('.xterm-rows').getByText('Removed the scratch folder.').waitFor({ timeout: 60_000 });
    assert.match(await term.locator('.xterm-rows').innerText(), /Approved once from the dashboard/);
    assert.equal(existsSync(join(home, 'work', 'scratch-dir')), false, 'the approved command ran');
    await panel.locator('li.tool').first().locator('.tool-head').click();
    assert.match(await panel.innerText(), /"command": "rm -rf \.\/work\/scratch-dir"/);
    await shot('chat');
    // The turn reached the model with the approval's result.
    assert.ok(fake.requests.some((r) => JSON.stringify(r.body).includes('please clean up the scratch folder')));
  });

  it('shows what the week cost in Analytics', async () => {
    await page.goto(`${dash.url}analytics`);
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByTestId('total-cost').getByText('$0.06').waitFor();
    assert.ok((await page.locator('.chart canvas').count()) >= 2, 'the charts are drawn');
    await shot('analytics');
  });

  it('pauses a cron job', async () => {
    await page.goto(`${dash.url}cron`);
    const job = page.locator('[data-job="morning-digest"]');
    await job.getByRole('button', { name: 'Pause' }).click();
    await job.getByText('paused', { exact: true }).waitFor();
    const jobs = JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: { name: string; state: string }[] };
    assert.equal(jobs.jobs.find((j) => j.name === 'morning-digest')?.state, 'paused');
    await shot('cron');
  });

  it('turns on a cron job’s continuity (stored as "self" in context_from, as Hermes does)', async () => {
    const job = page.locator('[data-job="morning-digest"]');
    await job.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel(/Continuity/).check();
    await page.getByRole('button', { name: 'Save job' }).click();
    await page.locator('[data-job="morning-digest"]').getByText(/· continuity/).waitFor();
    const jobs = JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: { name: string; context_from: string[] | null }[] };
    assert.deepEqual(jobs.jobs.find((j) => j.name === 'morning-digest')?.context_from, ['self']);
  });

  it('tails the logs with a level filter', async () => {
    await page.goto(`${dash.url}logs`);
    const lines = page.getByTestId('log-lines');
    await lines.getByText('seeded turn: 2 API call(s)').waitFor();
    await page.getByLabel('Level').selectOption('ERROR');
    await lines.getByText('500 upstream error').waitFor();
    assert.doesNotMatch(await lines.innerText(), /seeded turn/);
    await shot('logs');
  });

  it('renders Skills and Gateway, and no page threw', async () => {
    await page.goto(`${dash.url}skills`);
    await page.getByRole('heading', { name: 'Skills' }).waitFor();
    await page.getByLabel('Filter skills').waitFor();
    await shot('skills');
    await page.goto(`${dash.url}gateway`);
    await page.getByText('Not running').waitFor();
    await shot('gateway');
    assert.deepEqual(errors, []);
  });
});
