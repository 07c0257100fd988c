/**
 * Live events end to end over the BigQuery emulator (docs/console.md#live-events): a gateway with
 * the real refusal recorder (sampled, written by insertAll to the ops table `gateway_refusals`, the
 * same request as on Google Cloud) refuses a request; the studio's live page, already open in
 * Debian's Chromium, shows it with its reason (and a 400's message and field violations, as
 * the console shows an answer) within seconds, beside the events stored a moment
 * ago; the filter narrows both lists. At 1280 and 390 px nothing scrolls sideways outside the
 * tables' scroll containers. Screenshots go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Page } from 'playwright-core';
import {
  createRefusalRecorder,
  type RefusalRecorder,
  restInsertAll,
} from '../../adapters/refusal-recorder.ts';
import { RegistryClient } from '../../adapters/registry.ts';
import { plan } from '../../core/plan.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import {
  FakePublisher,
  fieldsOf,
  fixedTranslators,
  post,
  startTestGateway,
  type TestGateway,
} from '../gateway/support.ts';
import { testSettings } from '../storage/support.ts';
import { adminCall } from '../support/admin-call.ts';
import { seriousAxeViolations } from '../support/axe.ts';
import { onStudioPage, studioPageBrowser } from '../support/studio-page.ts';

const TOKEN = 'live-events-admin-token-0123456789';

describe('studio: live events show a refused request with its reason', function () {
  this.timeout(120_000);
  // Its pages share one Chromium (test/support/studio-page.ts).
  studioPageBrowser();
  const settings = testSettings();
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('live-events');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let recorder: RefusalRecorder;
  let gateway: TestGateway;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'live-shots-'));
  mkdirSync(shots, { recursive: true });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-live-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    recorder = createRefusalRecorder({
      insertAll: restInsertAll({ project: settings.project, dataset: p.ops.dataset, emulatorHost: emu.url }),
      flushMs: 500,
    });
    gateway = await startTestGateway({
      publisher: new FakePublisher(),
      translators: fixedTranslators({
        forms: {
          event: 'lead',
          format: { type: 'json' },
          fields: [
            { target: 'user.email', source: 'email' },
            { target: 'value', source: 'amount' },
          ],
        },
      }),
      refusals: recorder,
    });
    // Events the store function wrote a moment ago.
    const now = Date.now();
    const stored = (id: string, name: string, ago: number, attributes: Record<string, string>) => ({
      event_id: id,
      event_name: name,
      event_time: new Date(now - ago).toISOString(),
      received_at: new Date(now - ago).toISOString(),
      stored_at: new Date(now - ago + 50).toISOString(),
      topic: 'events',
      message_id: `m-${id}`,
      schema_version: 1,
      source: attributes['source'] ?? null,
      attributes: JSON.stringify(attributes),
    });
    await bigquery
      .dataset(p.dataset)
      .table('events')
      .insert([
        stored('ev-web-1', 'page_view', 20_000, { source: 'web' }),
        stored('ev-form-1', 'lead', 10_000, { translator: 'forms' }),
      ]);
    const [bucket] = await fx.run.storage.createBucket('live-registry');
    studio = await startStudio({
      registry: new RegistryClient(bucket),
      adminToken: TOKEN,
      assets: await buildAssets(),
      warehouse: {
        table: (name) => tableRef(settings.project, p.dataset, name),
        query: async (query, params) =>
          (await bigquery.query({ query, params }))[0] as Record<string, unknown>[],
      },
      opsTable: (name) => tableRef(settings.project, p.ops.dataset, name),
    });
  });
  after(async () => {
    await gateway?.close();
    await recorder?.close();
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const live = (body: unknown) => adminCall(studio.url, TOKEN, 'live', body);

  const inBrowser = (width: number, walk: (page: Page) => Promise<void>) =>
    onStudioPage(`${studio.url}/live#token=${TOKEN}`, width, walk);

  /**
   * The filter's labels that are not where a reader looks for them: each belongs on its control's
   * line just before it, or right above it at the same left edge, never at the end of the line
   * before its control's (beside another control).
   */
  const strayLabels = (page: Page): Promise<string[]> =>
    page.locator('#filters label').evaluateAll((labels) =>
      labels.flatMap((label) => {
        const control = document.getElementById(label.getAttribute('for') ?? '');
        if (!control) return [`${label.textContent} labels nothing`];
        const l = label.getBoundingClientRect();
        const c = control.getBoundingClientRect();
        const before = l.bottom > c.top && l.top < c.bottom && l.right <= c.left && c.left - l.right < 24;
        const above = c.top >= l.bottom - 1 && Math.abs(c.left - l.left) < 2;
        return before || above
          ? []
          : [`${label.textContent} at (${l.left}, ${l.top}), its control at (${c.left}, ${c.top})`];
      }),
    );

  it('a request refused at the gateway appears on the open page with its reason, and the filter narrows it', async () => {
    await inBrowser(1280, async (page) => {
      await page.getByRole('table', { name: 'Stored events' }).getByText('ev-form-1').waitFor();
      assert.deepEqual(await strayLabels(page), []);
      assert.ok(await page.getByText('No refused request in this window.').isVisible());
      // Refused while the page is open: a made-up token, and a translator the token may not use.
      assert.equal(
        (await post(`${gateway.url}/v1/topics/events`, {}, { authorization: 'Bearer nope' })).status,
        401,
      );
      const narrow = await gateway.mint(['publish:*']);
      const r = await post(`${gateway.url}/v1/translators/forms`, [{ email: 'a@b.example' }], {
        authorization: `Bearer ${narrow}`,
      });
      assert.equal(r.status, 403);
      // A 400 with a field: its message and the field are on the line, as the console shows them.
      const admin = await gateway.mint(['admin']);
      const bad = await post(
        `${gateway.url}/v1/translators/forms`,
        [{ email: 'c@d.example', amount: 'twelve' }],
        {
          authorization: `Bearer ${admin}`,
        },
      );
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      const field = fieldsOf(bad)[0];
      assert.equal(field, 'rows[0].value', JSON.stringify(bad.body));
      const refused = page.getByRole('table', { name: 'Refused requests' });
      await refused.getByText('INVALID_CREDENTIALS').waitFor({ timeout: 15_000 });
      await refused.getByText('PERMISSION_DENIED').waitFor({ timeout: 15_000 });
      const row = refused.locator('tbody tr', { hasText: 'INVALID_ROWS' });
      await row.waitFor({ timeout: 15_000 });
      assert.match((await row.textContent()) ?? '', /rows\[0\]\.value: expected number/);
      assert.match((await row.textContent()) ?? '', /row\(s\) are invalid/);
      await page.screenshot({ path: join(shots, 'live-events.png'), fullPage: true });

      await page.getByLabel('Source, reason or event').fill('forms');
      await refused.getByText('INVALID_CREDENTIALS').waitFor({ state: 'detached' });
      assert.equal(await refused.locator('tbody tr').count(), 2);
      assert.equal(await refused.getByText('translator:forms').count(), 2);
      const stored = page.getByRole('table', { name: 'Stored events' });
      await stored.getByText('ev-web-1').waitFor({ state: 'detached' });
      assert.equal(await stored.locator('tbody tr').count(), 1);
      assert.deepEqual(await seriousAxeViolations(page), []);
    });
  });

  it('reads well at 390 px, and the API agrees with plain SQL over the ops table', async () => {
    await inBrowser(390, async (page) => {
      await page.getByRole('table', { name: 'Refused requests' }).getByText('INVALID_CREDENTIALS').waitFor();
      // "Show" and "From" on their controls' lines, not at the end of the line before.
      assert.deepEqual(await strayLabels(page), []);
      await page.screenshot({ path: join(shots, 'live-events-narrow.png'), fullPage: true });
      assert.deepEqual(await seriousAxeViolations(page), []);
    });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const { status, json } = await live({ since });
    assert.equal(status, 200);
    const [rows] = await bigquery.query({
      query: `SELECT reason, source FROM ${p.ops.dataset}.gateway_refusals WHERE refused_at >= TIMESTAMP(@since) ORDER BY refused_at DESC`,
      params: { since },
    });
    assert.deepEqual(
      json['refused']?.map((r) => [r['reason'], r['source']]),
      (rows as Record<string, unknown>[]).map((r) => [r['reason'], r['source']]),
    );
    // Never the body: no e-mail address from the refused translator request is kept.
    assert.ok(!JSON.stringify(json).includes('a@b.example'));
    assert.ok(!JSON.stringify(json).includes('c@d.example'));
    assert.equal((await live({ since: 'soon' })).status, 400);
  });
});
