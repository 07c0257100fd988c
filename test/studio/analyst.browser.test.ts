/**
 * The studio for analysts (issue #43) over the BigQuery emulator with the plan's tables: the SQL
 * page's schema browser lists the datasets' tables and views with their columns, types and
 * descriptions (the `schema` call, read through tables.list / tables.get), and a column clicked
 * goes into the query; the pages pass the usability checks (no sideways scroll, Tab reaches
 * every control, no serious axe-core violation) at 1280 and 390 px. Screenshots go to
 * $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Browser } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import type { SchemaDataset } from '../../core/console/schema.ts';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { launchChromium } from '../support/chromium.ts';
import { assertPageUsable } from '../support/page-checks.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'analyst-pages-admin-token-0123456789';
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** A stored event `minutesAgo` minutes old, with its data and any other columns. */
const event = (id: string, name: string, minutesAgo: number, data: object, more: object = {}) => {
  const at = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  return {
    event_id: id,
    event_name: name,
    event_time: at,
    received_at: at,
    stored_at: at,
    topic: 'events',
    message_id: `m-${id}`,
    schema_version: 1,
    event_data: JSON.stringify(data),
    ...more,
  };
};

describe('studio for analysts: schema browser, explorer search', function () {
  this.timeout(120_000);
  const settings = testSettings();
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('analyst-pages');
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'analyst-shots-'));
  mkdirSync(shots, { recursive: true });
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let browser: Browser;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-analyst-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    await bigquery
      .dataset(p.dataset)
      .table('events')
      .insert([
        event(
          'big',
          'purchase',
          2,
          { value: 150, currency: 'EUR' },
          {
            source: 'web',
            user: { email: 'ana@example.com' },
            attributes: JSON.stringify({ translator: 'shopify' }),
          },
        ),
        event('small', 'purchase', 3, { value: 50, currency: 'EUR' }, { source: 'backend' }),
        event('pv', 'page_view', 4, {}, { source: 'web' }),
      ]);
    // big's ledger row and an invalid twin: the opened event's tables, wider than a phone.
    const now = new Date().toISOString();
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert([
        {
          event_id: 'big',
          event_name: 'purchase',
          destination: 'meta',
          status: 'delivered',
          replay: false,
          recorded_at: now,
        },
      ]);
    await bigquery
      .dataset(p.dataset)
      .table('invalid_events')
      .insert([
        {
          received_at: now,
          stored_at: now,
          reason: 'invalid_event',
          errors: [{ path: 'value', message: 'must be a number' }],
          event_id: 'big',
          payload: JSON.stringify({
            event_name: 'purchase',
            event_id: 'big',
            value: 'one hundred and fifty euros',
          }),
        },
      ]);
    const [bucket] = await fx.run.storage.createBucket('analyst-registry');
    studio = await startStudio({
      registry: new RegistryClient(bucket),
      adminToken: TOKEN,
      assets: await buildAssets(),
      warehouse: studioWarehouse(bigquery, settings.project, p),
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (action: string, body: unknown) => {
    const res = await fetch(`${studio.url}/v1/admin/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  it('lists the plan’s tables and typed views with their columns, types and descriptions', async () => {
    const { status, json } = await call('schema', {});
    assert.equal(status, 200, JSON.stringify(json));
    const datasets = json['datasets'] as SchemaDataset[];
    assert.deepEqual(
      datasets.map((d) => d.name),
      [p.dataset],
    );
    const events = datasets[0]?.tables ?? [];
    // Every table and view of the plan's events dataset, nothing else.
    assert.deepEqual(
      events.map((t) => t.name),
      [...p.tables.map((t) => t.name), ...p.views.map((v) => v.name)].sort((a, b) => a.localeCompare(b)),
    );
    const table = events.find((t) => t.name === 'events');
    assert.equal(table?.kind, 'table');
    assert.deepEqual(table?.columns.find((c) => c.name === 'event_id')?.type, 'STRING');
    assert.match(table?.columns.find((c) => c.name === 'event_time')?.description ?? '', /partition column/);
    // A record's fields under their dotted path, as a query names them.
    assert.deepEqual(
      table?.columns
        .filter((c) => c.name.startsWith('user.'))
        .map((c) => c.name)
        .slice(0, 2),
      ['user.email', 'user.phone'],
    );
    assert.equal(table?.columns.find((c) => c.name === 'user')?.type, 'STRUCT');
    const purchase = events.find((t) => t.name === 'purchase');
    assert.equal(purchase?.kind, 'view');
    assert.match(purchase?.description ?? '', /An order was placed/);
    assert.deepEqual(
      ['transaction_id', 'value', 'currency'].map((n) => purchase?.columns.find((c) => c.name === n)?.type),
      ['STRING', 'FLOAT64', 'STRING'],
    );
  });

  it('the SQL page shows them; a column clicked goes into the query at the cursor', async () => {
    for (const size of SIZES) {
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${studio.url}/sql#token=${TOKEN}`);
      await page.getByText(/^\d+ table\(s\) and view\(s\)\.$/).waitFor();
      await page.getByLabel('Find a table or column').fill('transaction_id');
      await page.locator('details[data-table="events.purchase"][open]').waitFor();
      const query = page.getByLabel('SQL (Ctrl+Enter runs it)');
      await query.fill('SELECT  FROM events.purchase');
      await query.evaluate((q: HTMLTextAreaElement) => q.setSelectionRange(7, 7));
      await page
        .getByRole('list', { name: 'Columns of events.purchase' })
        .getByRole('button', { name: 'Insert column transaction_id' })
        .click();
      assert.equal(await query.inputValue(), 'SELECT transaction_id FROM events.purchase');
      // Its result, a table wider than a phone, passes the same checks.
      await query.fill(
        'SELECT event_id, event_name, event_time, received_at, stored_at, topic, message_id FROM events',
      );
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText(/^\d+ row\(s\) in \d+ ms\.$/).waitFor();
      await page.screenshot({ path: join(shots, `sql-schema-${size.name}.png`), fullPage: true });
      await assertPageUsable(page);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  const list = async (property: string) => {
    const { status, json } = await call('explore', {
      from: new Date(Date.now() - 86_400_000).toISOString(),
      to: new Date(Date.now() + 3_600_000).toISOString(),
      property,
    });
    return {
      status,
      json,
      ids: ((json['events'] ?? []) as Record<string, unknown>[]).map((e) => e['event_id']),
    };
  };

  it('explorer: filters by a property path and value, the value a query parameter', async () => {
    assert.deepEqual((await list('properties.value > 100')).ids, ['big']);
    assert.deepEqual((await list('properties.value <= 100')).ids, ['small']);
    assert.deepEqual((await list('user.email = "ana@example.com"')).ids, ['big']);
    assert.deepEqual((await list('source = backend')).ids, ['small']);
    assert.deepEqual((await list('attributes.translator contains shop')).ids, ['big']);
    // A hostile value is a value: it matches nothing and changes no SQL.
    assert.deepEqual((await list(`properties.currency = "' OR 1=1 --"`)).ids, []);
    const big = (await list('properties.currency = EUR')).json['events'] as Record<string, unknown>[];
    assert.deepEqual(
      big.map((e) => [e['event_id'], e['source'], e['translator']]),
      [
        ['big', 'web', 'shopify'],
        ['small', 'backend', null],
      ],
    );
  });

  it('explorer: a path that is no column or field is refused, saying which paths exist', async () => {
    for (const [property, why] of [
      ['nope.x = 1', /unknown path "nope\.x": use properties\.<field>/],
      ["properties.a') OR TRUE -- = 1", /must be a path, an operator|unknown path/],
      ['properties.value > lots', /compares with > only to a number/],
    ] as const) {
      const r = await list(property);
      assert.equal(r.status, 400, property);
      const error = r.json['error'] as {
        details: { fieldViolations?: { field: string; description: string }[] }[];
      };
      const v = error.details.flatMap((d) => d.fieldViolations ?? [])[0];
      assert.equal(v?.field, 'property');
      assert.match(v?.description ?? '', why);
    }
  });

  it('the explorer page: property search, source and translator columns, live tail', async () => {
    // Each size's walk adds one event over 100 (its live tail's), so the phone finds two.
    for (const [n, size] of SIZES.entries()) {
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${studio.url}/explorer#token=${TOKEN}`);
      await page.getByText(/^\d+ event\(s\), the newest first/).waitFor();
      await page.getByLabel('Property', { exact: true }).fill('nope = 1');
      await page.getByRole('button', { name: 'List events' }).click();
      await page.getByText(/^property: has an unknown path "nope"/).waitFor();
      await page.getByLabel('Property', { exact: true }).fill('properties.value > 100');
      await page.getByRole('button', { name: 'List events' }).click();
      await page.getByText(`${n + 1} event(s), the newest first.`).waitFor();
      const rows = page.getByRole('table', { name: 'Events found' }).locator('tbody tr');
      assert.match((await rows.last().textContent()) ?? '', /^bigpurchase.*webshopify1$/);
      assert.match(new URL(page.url()).search, /property=properties\.value\+%3E\+100/);
      // Live tail: an event stored after the box is ticked shows up without another click.
      await page.getByLabel('Live tail (every 5 s)').check();
      await page.getByText(/Live: listed at/).waitFor();
      const late = `late-${size.name}`;
      await bigquery
        .dataset(p.dataset)
        .table('events')
        .insert([event(late, 'purchase', 0, { value: 500 })]);
      await page.getByRole('button', { name: late }).waitFor({ timeout: 30_000 });
      await page.getByLabel('Live tail (every 5 s)').uncheck();
      // One event opened: its stored row, ledger and payload blocks pass the same checks.
      await page.getByRole('button', { name: 'big', exact: true }).click();
      await page.getByText('Stored 1 time(s), refused 1 time(s), 1 ledger row(s).').waitFor();
      await page.screenshot({ path: join(shots, `explorer-search-${size.name}.png`), fullPage: true });
      await assertPageUsable(page);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});
