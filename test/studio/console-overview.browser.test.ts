/**
 * The console's overview over the BigQuery emulator, through the studio's admin API: a warehouse
 * with known rows (a redelivered copy, an event outside the range, invalid events with and
 * without field errors, ledger rows with a dead letter) gives the numbers worked out by hand
 * here, and the same numbers as plain SQL a dashboard would run over the same tables; the
 * console page in Debian's Chromium shows them, as figures, charts and tables, under the studio's
 * Content-Security-Policy. Screenshots go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Page } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import type { Overview } from '../../core/console/overview.ts';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { launchChromium } from '../support/chromium.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'console-overview-admin-token-0123456789';
const HOUR = 3_600_000;
const HOSTILE = '<img src=x onerror="window.__xss=1">';

describe('console: the overview agrees with SQL over the same rows', function () {
  // Each page walk launches its own Chromium: on a loaded 2-core CI machine that alone can take
  // seconds (one walk passed locally in 2 s and timed out at 30 s in a CI run).
  this.timeout(90_000);
  const settings = testSettings({ experimental: { rules: true } });
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('console-overview');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let registry: RegistryClient;
  // Three whole hours, ending at the last hour boundary.
  const h0 = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
  const at = (hour: number, minute: number, ms = 0) =>
    new Date(h0 + hour * HOUR + minute * 60_000 + ms).toISOString();
  const range = { from: at(0, 0), to: at(3, 0) };

  const event = (
    id: string,
    name: string,
    message: string,
    received: string,
    latencyMs: number,
    eventTime = received,
  ) => ({
    event_id: id,
    event_name: name,
    event_time: eventTime,
    received_at: received,
    stored_at: new Date(Date.parse(received) + latencyMs).toISOString(),
    topic: 'events',
    message_id: message,
    schema_version: 1,
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-console-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const dataset = bigquery.dataset(p.dataset);
    await dataset.table('events').insert([
      event('e1', 'page_view', 'm1', at(0, 5), 100),
      // A hostile value the explorer must show as text.
      { ...event('e2', 'page_view', 'm2', at(0, 10), 200), event_data: JSON.stringify({ note: HOSTILE }) },
      event('p1', 'purchase', 'm3', at(0, 20), 300),
      event('e3', 'page_view', 'm4', at(1, 30), 400),
      // Redelivered: the same event stored twice, counted once.
      event('e3', 'page_view', 'm5', at(1, 31), 5000, at(1, 30)),
      event('p2', 'purchase', 'm6', at(2, 59, 59_999), 1000),
      // Outside the range on both sides.
      event('old', 'page_view', 'm7', at(-1, 59), 50),
      event('new', 'page_view', 'm8', at(3, 0), 50),
    ]);
    const invalid = (
      received: string,
      reason: string,
      errors: { path: string; message: string }[],
      eventId?: string,
    ) => ({
      received_at: received,
      stored_at: received,
      reason,
      errors,
      ...(eventId ? { event_id: eventId } : {}),
    });
    await dataset.table('invalid_events').insert([
      // e1's invalid twin: refused once, then sent again correctly.
      {
        ...invalid(at(0, 1), 'invalid_event', [{ path: 'value', message: 'must be a number' }], 'e1'),
        payload: JSON.stringify({ event_name: 'page_view', event_id: 'e1', value: HOSTILE }),
      },
      invalid(at(0, 2), 'invalid_event', [{ path: 'value', message: 'must be a number' }]),
      invalid(at(2, 3), 'not_json', []),
    ]);
    await dataset.table('action_runs').insert([
      {
        rule: 'page-views',
        version: '1.0',
        firing_id: 'f1',
        event_id: 'e1',
        action: 'publish:page_seen',
        status: 'sent',
        recorded_at: at(0, 6),
      },
    ]);
    const delivery = (id: string, destination: string, status: string, minute: number) => ({
      event_id: id,
      event_name: 'purchase',
      destination,
      status,
      replay: false,
      recorded_at: at(0, minute),
    });
    await dataset
      .table('deliveries')
      .insert([
        delivery('e1', 'meta', 'delivered', 6),
        delivery('e2', 'meta', 'delivered', 11),
        delivery('p1', 'meta', 'delivered', 21),
        delivery('p1', 'meta', 'dead_lettered', 40),
        delivery('e1', 'ga4', 'skipped', 6),
        delivery('e2', 'ga4', 'skipped', 11),
      ]);
    // One registry for the whole file (the fixture's buckets are made per test).
    const [bucket] = await fx.run.storage.createBucket('console-registry');
    registry = new RegistryClient(bucket);
    studio = await startStudio({
      registry,
      adminToken: TOKEN,
      assets: await buildAssets(),
      warehouse: studioWarehouse(bigquery, settings.project, p),
    });
  });
  after(async () => {
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const overview = async (body: unknown) => {
    const res = await fetch(`${studio.url}/v1/admin/overview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Overview & { error?: { message: string } } };
  };
  const sql = async <T>(query: string): Promise<T[]> =>
    (await bigquery.query({ query, params: range }))[0] as T[];

  it('gives the numbers worked out by hand: hourly series, reasons, ledger, latency', async () => {
    const { status, json: o } = await overview(range);
    assert.equal(status, 200, JSON.stringify(o));
    assert.deepEqual(o.hours, [at(0, 0), at(1, 0), at(2, 0)]);
    assert.deepEqual(
      o.events.map((e) => [e.name, e.counts, e.total]),
      [
        ['page_view', [2, 1, 0], 3],
        ['purchase', [1, 0, 1], 2],
      ],
    );
    assert.deepEqual(o.invalid, [2, 0, 1]);
    assert.deepEqual(o.totals, { events: 5, invalid: 3 });
    assert.deepEqual(o.reasons, [
      { reason: 'invalid_event', path: 'value', message: 'must be a number', events: 2 },
      { reason: 'not_json', path: '', message: '', events: 1 },
    ]);
    assert.deepEqual(o.deliveries, [
      { destination: 'ga4', status: 'skipped', deliveries: 2 },
      { destination: 'meta', status: 'dead_lettered', deliveries: 1 },
      { destination: 'meta', status: 'delivered', deliveries: 3 },
    ]);
    assert.deepEqual(o.deadLetters, [{ destination: 'meta', deliveries: 1 }]);
    // Six stored rows in range: 100, 200, 300, 400, 1000, 5000 ms; nearest rank 3 and 6.
    assert.deepEqual(o.latency, { stored: 6, p50_ms: 300, p99_ms: 5000, max_ms: 5000 });
  });

  it('agrees with the plain SQL a dashboard runs over events_dedup and the ledger', async () => {
    const { json: o } = await overview(range);
    const [dedup] = await sql<{ n: number }>(
      `SELECT COUNT(*) AS n FROM events.events_dedup WHERE received_at >= TIMESTAMP(@from) AND received_at < TIMESTAMP(@to)`,
    );
    assert.equal(o.totals.events, dedup?.n);
    const [invalid] = await sql<{ n: number }>(
      `SELECT COUNT(*) AS n FROM events.invalid_events WHERE received_at >= TIMESTAMP(@from) AND received_at < TIMESTAMP(@to)`,
    );
    assert.equal(o.totals.invalid, invalid?.n);
    const [dead] = await sql<{ n: number }>(
      `SELECT COUNTIF(status = 'dead_lettered') AS n FROM events.deliveries WHERE recorded_at >= TIMESTAMP(@from) AND recorded_at < TIMESTAMP(@to)`,
    );
    assert.equal(
      o.deadLetters.reduce((a, d) => a + d.deliveries, 0),
      dead?.n,
    );
  });

  const explore = async (body: unknown) => {
    const res = await fetch(`${studio.url}/v1/admin/explore`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, Record<string, unknown>[]> };
  };

  it('explores one event: its stored copies, its invalid twin and its ledger rows', async () => {
    const e3 = await explore({ event_id: 'e3' });
    assert.equal(e3.status, 200, JSON.stringify(e3.json));
    assert.deepEqual(
      e3.json['stored']?.map((r) => [r['message_id'], r['received_at']]),
      [
        ['m4', at(1, 30)],
        ['m5', at(1, 31)],
      ],
    );
    const e1 = await explore({ event_id: 'e1' });
    assert.deepEqual(
      e1.json['invalid']?.map((r) => [r['reason'], r['errors']]),
      [['invalid_event', [{ path: 'value', message: 'must be a number' }]]],
    );
    assert.deepEqual(
      e1.json['ledger']?.map((r) => [r['destination'], r['status']]),
      [
        ['ga4', 'skipped'],
        ['meta', 'delivered'],
      ],
    );
    // This studio has no settings: no destinations to show payloads for.
    assert.deepEqual(e1.json['payloads'], []);
    const none = await explore({ event_id: 'nope' });
    assert.deepEqual([none.json['stored'], none.json['invalid'], none.json['ledger']], [[], [], []]);
  });

  it('lists a range’s events by name, newest first, once each with their copies counted', async () => {
    const list = await explore({ ...range, event_name: 'page_view' });
    assert.equal(list.status, 200, JSON.stringify(list.json));
    assert.deepEqual(
      list.json['events']?.map((r) => [r['event_id'], r['copies']]),
      [
        ['e3', 2],
        ['e2', 1],
        ['e1', 1],
      ],
    );
    const bad = await explore({ event_id: 'has space' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json), /"field":"event_id"/);
    assert.equal((await explore({ from: range.to, to: range.from })).status, 400);
  });

  it('refuses a bad range naming the field, and says when it has no warehouse', async () => {
    const backwards = await overview({ from: range.to, to: range.from });
    assert.equal(backwards.status, 400);
    assert.match(backwards.json.error?.message ?? '', /from must be before to/);
    assert.equal((await overview({ from: 'yesterday', to: range.to })).status, 400);
    const year = await overview({ from: at(-24 * 365, 0), to: range.to });
    assert.match(year.json.error?.message ?? '', /at most 92 days/);
    const bare = await startStudio({ registry: new RegistryClient(fx.bucket), adminToken: TOKEN });
    try {
      const res = await fetch(`${bare.url}/v1/admin/overview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(range),
      });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /FAILED_PRECONDITION/);
    } finally {
      await bare.close();
    }
  });

  /** A page of the studio in Chromium, failing on page errors and console errors (CSP refusals). */
  async function inBrowser(path: string, walk: (page: Page) => Promise<void>) {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      // A 400 is a refusal the page shows (and the walk checks); any other error is a problem.
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 400 \(Bad Request\)/.test(m.text())) problems.push(m.text());
      });
      await page.goto(`${studio.url}${path}#token=${TOKEN}`);
      await walk(page);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  }
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'console-shots-'));
  mkdirSync(shots, { recursive: true });

  it('runs a single SELECT under the cap, and refuses anything else with the reason', async () => {
    const call = async (body: unknown) => {
      const res = await fetch(`${studio.url}/v1/admin/sql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const ok = await call({
      query: `SELECT event_name, COUNT(DISTINCT event_id) AS events FROM events WHERE received_at >= TIMESTAMP('${range.from}') AND received_at < TIMESTAMP('${range.to}') GROUP BY event_name ORDER BY event_name`,
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.deepEqual(ok.json['columns'], ['event_name', 'events']);
    assert.deepEqual(ok.json['rows'], [
      { event_name: 'page_view', events: 3 },
      { event_name: 'purchase', events: 2 },
    ]);
    assert.equal(ok.json['truncated'], false);
    const few = await call({ query: 'SELECT event_id FROM events ORDER BY event_id', maxRows: 2 });
    assert.equal((few.json['rows'] as unknown[]).length, 2);
    assert.equal(few.json['truncated'], true);
    const del = await call({ query: 'DELETE FROM events WHERE TRUE' });
    assert.equal(del.status, 400);
    assert.match(JSON.stringify(del.json), /only a single SELECT/);
    const typo = await call({ query: 'SELEC 1' });
    assert.equal(typo.status, 400);
    assert.equal((await call({ query: 'SELECT 1', maxRows: 0 })).status, 400);
    const [count] = (await bigquery.query('SELECT COUNT(*) AS n FROM events.events'))[0] as { n: number }[];
    assert.equal(count?.n, 8, 'nothing was deleted');
  });

  it('runs, charts and saves a query on the SQL page', async () => {
    await inBrowser('/sql', async (page) => {
      const query = `SELECT TIMESTAMP_TRUNC(received_at, HOUR) AS hour, event_name, COUNT(DISTINCT event_id) AS events
FROM events
WHERE received_at >= TIMESTAMP('${range.from}') AND received_at < TIMESTAMP('${range.to}')
GROUP BY hour, event_name ORDER BY hour, event_name`;
      await page.getByLabel('SQL (Ctrl+Enter runs it)').fill(query);
      await page.getByLabel('SQL (Ctrl+Enter runs it)').press('Control+Enter');
      await page.getByText(/^4 row\(s\) in \d+ ms\.$/).waitFor();
      const rows = await page.getByRole('table', { name: 'Result rows' }).locator('tbody tr').allInnerTexts();
      assert.deepEqual(
        rows.map((r) => r.split('\t').slice(1).join(' ')),
        ['page_view 2', 'purchase 1', 'page_view 1', 'purchase 1'],
      );
      assert.equal(await page.locator('#sql-chart canvas').count(), 1);
      await page.getByLabel('Save as').fill('hourly_events');
      await page.getByRole('button', { name: 'Save the query' }).click();
      await page.getByText('Query/hourly_events: created 1.0.').waitFor();
      await page.screenshot({ path: join(shots, 'console-sql.png'), fullPage: true });
      await page.goto(`${studio.url}/sql?query=hourly_events`);
      await page.getByText('Opened hourly_events (version 1.0).').waitFor();
      assert.equal(await page.getByLabel('SQL (Ctrl+Enter runs it)').inputValue(), query);
      await page.getByLabel('SQL (Ctrl+Enter runs it)').fill('DROP TABLE events');
      await page.getByRole('button', { name: 'Run' }).click();
      await page
        .locator('#sql-status p.err', { hasText: /The query was not run: only a single SELECT may run here/ })
        .waitFor();
    });
  });

  it('shows events with hostile fields as text in the explorer', async () => {
    await inBrowser('/explorer?event_id=e1', async (page) => {
      await page.getByText(/Stored 1 time\(s\), refused 1 time\(s\), 2 ledger row/).waitFor();
      assert.match((await page.getByRole('table', { name: 'Refused' }).textContent()) ?? '', /onerror/);
      await page.getByLabel('Event id').fill('e2');
      await page.getByRole('button', { name: 'Show the event' }).click();
      await page
        .getByLabel('Stored row 1')
        .getByText(/onerror=/)
        .waitFor();
      await page.getByLabel('Event name').fill('page_view');
      await page.getByLabel('Happened in').selectOption('24');
      await page.getByRole('button', { name: 'List events' }).click();
      // The day holds the range's three page views and the two just outside it.
      await page.getByText(/^5 event\(s\), the newest first\.$/).waitFor();
      assert.equal(await page.getByRole('table', { name: 'Events found' }).locator('tbody tr').count(), 5);
      assert.equal(await page.locator('img').count(), 0);
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
      await page.screenshot({ path: join(shots, 'console-explorer-hostile.png'), fullPage: true });
    });
  });

  it('tries a rule on the stored events, saves it and shows its firings, on the rules page', async () => {
    await inBrowser('/rules', async (page) => {
      await page.getByLabel('The rule, as YAML').fill(`kind: Rule
name: page-views
spec:
  trigger:
    event:
      names: [page_view]
  actions:
    - publish: { event_name: page_seen }
`);
      await page.getByLabel('Try it on the events of').selectOption('24');
      await page.getByRole('button', { name: 'Try it' }).click();
      // The day's five page views, e3 once (events_dedup folds its copy).
      await page
        .getByText('Over 5 stored event(s), it would have fired 5 time(s). Nothing was sent.')
        .waitFor();
      assert.equal(await page.getByRole('table', { name: 'Firings by key' }).locator('tbody tr').count(), 5);
      await page.getByRole('button', { name: 'Show what will be saved' }).click();
      await page.getByText('Rule/page-views: would be created 1.0').waitFor();
      await page.getByRole('button', { name: 'Save the rule' }).click();
      await page.getByText('Rule/page-views: created 1.0').waitFor();
      await page.getByText('Opened page-views 1.0.').waitFor();
      // The status line is set before the firings arrive: wait for their table.
      await page.getByRole('table', { name: 'Firings' }).waitFor();
      const firings = await page.getByRole('table', { name: 'Firings' }).locator('tbody tr').allInnerTexts();
      assert.equal(firings.length, 1);
      assert.match(firings[0] ?? '', /e1\s+publish:page_seen\s+sent/);
      await page.screenshot({ path: join(shots, 'rules.png'), fullPage: true });
      // A mistake in the YAML is named where the person looks.
      await page
        .getByLabel('The rule, as YAML')
        .fill('kind: Rule\nname: page-views\nspec:\n  trigger: {}\n  actions: []\n');
      await page.getByRole('button', { name: 'Try it' }).click();
      await page.locator('#rule-status li', { hasText: 'documents[0].spec' }).first().waitFor();
    });
  });

  it('shows them on the console page: figures, charts and tables, nothing refused by the CSP', async () => {
    await inBrowser('/console?hours=24', async (page) => {
      await page.getByText(/UTC, in \d+ ms\./).waitFor();
      const figures = (await page.locator('#figures').innerText()).replace(/\s+/g, ' ');
      // The last 24 hours hold the range's five events and the two just outside it.
      assert.match(figures, /Events stored 7 /);
      assert.match(figures, /Invalid events 3 30\.0% of what arrived/);
      assert.match(figures, /Dead letters 1 meta: 1/);
      // Eight stored rows: 50, 50, 100, 200, 300, 400, 1000, 5000 ms; nearest rank 4 and 8.
      assert.match(figures, /Receipt to storage p50 200 ms p99 5\.0 s, max 5\.0 s/);
      assert.equal(await page.locator('#events-chart canvas').count(), 1);
      assert.equal(await page.locator('#invalid-chart canvas').count(), 1);
      const meta = page
        .getByRole('table', { name: 'Deliveries by destination and status' })
        .getByRole('row', { name: /^meta/ });
      assert.deepEqual(
        (await meta.locator('td').allInnerTexts()).map((t) => t.trim()),
        ['meta', '3', '0', '0', '0', '0', '1'],
      );
      const reasons = await page
        .getByRole('table', { name: 'Top reasons' })
        .locator('tbody tr')
        .allInnerTexts();
      assert.match(reasons[0] ?? '', /invalid_event\s+value\s+must be a number\s+2/);
      await page.screenshot({ path: join(shots, 'console-overview.png'), fullPage: true });
      await page.setViewportSize({ width: 420, height: 900 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(shots, 'console-overview-narrow.png'), fullPage: true });
    });
  });
});
