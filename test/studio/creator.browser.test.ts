/**
 * The studio's creator in Debian's Chromium, as a person uses it: paste a messy CSV (a BOM-less
 * export with decimal commas, a date pattern, quoted commas and a hostile cell), read it, name the
 * event, map the order number to the event id and the date to the event time, see every row
 * checked, save; the registry then holds the definition and the translator the page showed, and
 * the translator's own module on the server reads the same sample as the page did. The hostile
 * cell stays text. Screenshots of each step go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import { factsWith } from '../../core/platforms/facts.ts';
import { translate } from '../../core/translate/index.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-test-admin-token-0123456789';
const SAMPLE = [
  'Order;E-Mail;Amount;Datum;Product',
  'Q-1;ana@example.com;1.234,50;03.11.2026;"Roof tiles; red"',
  'Q-2;ben@example.com;99,90;04.11.2026;<img src=x onerror="window.__xss=1">',
  'Q-3;cy@example.com;12,00;05.11.2026;Gutter',
].join('\n');

describe('studio creator in a browser', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('creator-registry', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(ui.shots, `${name}.png`), fullPage: true });

  it('turns a pasted CSV into a definition and a live translator, checking every row', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
    await page.getByLabel('Paste the raw data').fill(SAMPLE);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as CSV \(delimiter ";"\), with a header row: 3 rows, 5 columns/).waitFor();
    await shot(page, '1-sample-read');

    // The hostile cell is shown as the text it is.
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.equal(await page.locator('#preview img').count(), 0);
    await page.getByRole('cell', { name: '<img src=x onerror="window.__xss=1">', exact: true }).waitFor();

    const name = page.getByLabel('Event name');
    await name.fill('Purchase');
    await page.getByText(/The name must match/).waitFor();
    await name.fill('purchse');
    await page.getByText(/Too close to the catalogue event "purchase"/).waitFor();
    await name.fill('quote_requested');
    await page.getByText('quote_requested is a good name.').waitFor();

    await page.getByLabel('Where Order goes').selectOption('event_id');
    await page.getByLabel('Where Datum goes').selectOption('event_time');
    await page.getByLabel('Where Amount goes').selectOption('event_data');
    await page.getByLabel('Field name for Amount').fill('amount');
    await page.getByLabel('Amount is required').check();
    await page
      .getByText('All 3 sample rows fit the definition.')
      .waitFor({ timeout: 5000 })
      .catch(async (err: unknown) => {
        await shot(page, 'failed-fields');
        throw new Error(
          `${String(err)}\n${await page.locator('#row-check').textContent()}\n${await page.locator('#preview').textContent()}`,
        );
      });
    // The README and docs/studio.md show this page (SCREENSHOTS=docs/img refreshes it).
    await shot(page, 'creator-fields');

    // Step 3: a control per platform its facts offer, of the kind they declare; the consent
    // warning names each chosen platform short of a purpose (issue #99: Google Ads and Reddit too).
    for (const f of factsWith('step3')) {
      const tag = await page.getByLabel(f.step3.label, { exact: true }).evaluate((e) => e.tagName);
      assert.equal(tag, f.step3.kind === 'events' ? 'SELECT' : 'INPUT', f.type);
    }
    await page.getByLabel('Google Ads conversion action id', { exact: true }).fill('123');
    await page.getByLabel('Reddit', { exact: true }).selectOption('LEAD');
    await page
      .getByText(/^Google Ads and Reddit receive an event only with consent to ads and ad user data: /)
      .waitFor();
    await page.getByLabel('Google Ads conversion action id', { exact: true }).fill('');
    await page.getByLabel('Reddit', { exact: true }).selectOption('');
    await page.waitForFunction(() => document.getElementById('consent-note')?.textContent === '');

    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('EventDefinition/quote_requested: would be created 1.0').waitFor();
    await page.getByText('Translator/quote-requested-csv: would be created 1.0').waitFor();
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .getByText('http://127.0.0.1:8080/v1/translators/quote-requested-csv', { exact: true })
      .waitFor();
    await shot(page, '3-saved-live');
    assert.deepEqual(errors, []);

    const registry = new RegistryClient(ui.bucket());
    const def = await registry.readVersion('EventDefinition', 'quote_requested', '1.0');
    const fields = (def.spec as { fields: { name: string; type: string; required?: boolean }[] }).fields;
    assert.deepEqual(
      fields.find((f) => f.name === 'amount'),
      { name: 'amount', type: 'number', required: true },
    );
    const tr = await registry.readVersion('Translator', 'quote-requested-csv', '1.0');
    const spec = tr.spec as TranslatorSpec;
    assert.deepEqual(spec.key, ['Order']);
    assert.deepEqual(spec.format, { type: 'csv', delimiter: ';', header: true });
    // The server's translator reads the sample exactly as the page's preview did.
    const r = translate({
      translator: tr.name,
      spec,
      eventName: spec.event,
      body: new TextEncoder().encode(SAMPLE),
      contentType: 'text/csv',
    });
    assert.ok(r.ok);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.rows.map((x) => [x.event['amount'], x.event['event_time']]),
      [
        [1234.5, '2026-11-03T00:00:00.000Z'],
        [99.9, '2026-11-04T00:00:00.000Z'],
        [12, '2026-11-05T00:00:00.000Z'],
      ],
    );
    await page.close();
  });

  it('marks sample rows the definition would refuse, with the reason, and works at a narrow width', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 420, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page
      .getByLabel('Paste the raw data')
      .fill('{"sku":"A-1","qty":"2"}\n{"sku":"B-2","qty":"three"}\n{"sku":"C-3","qty":4}\n');
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as NDJSON/).waitFor();
    await page.getByLabel('Event name').fill('stock_counted');
    await page.getByText(/1 of 3 sample rows would be refused/).waitFor();
    const bad = page.locator('#preview tr.bad');
    assert.equal(await bad.count(), 1);
    assert.match((await bad.textContent()) ?? '', /qty/);
    await shot(page, '4-narrow-refused-row');
    await page.close();
  });

  it('can be used with the keyboard alone', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    const focused = () => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName);
    // Tab from the top of the page (past the pages' links and the "I have …" picker) to the sample box, type it, then on to
    // the read button.
    for (let i = 0; i < 40 && (await focused()) !== 'sample'; i++) await page.keyboard.press('Tab');
    assert.equal(await focused(), 'sample');
    await page.keyboard.type('id,amount\nA,1\nB,2\n');
    for (let i = 0; i < 6 && (await focused()) !== 'read'; i++) await page.keyboard.press('Tab');
    assert.equal(await focused(), 'read');
    await page.keyboard.press('Enter');
    await page.getByText(/Read as CSV/).waitFor();
    for (let i = 0; i < 10 && (await focused()) !== 'event-name'; i++) await page.keyboard.press('Tab');
    assert.equal(await focused(), 'event-name');
    await page.keyboard.type('stock_counted');
    await page.getByText('stock_counted is a good name.').waitFor();
    await page.close();
  });

  it('serves its pages under a strict Content-Security-Policy, and the API only with the token', async () => {
    const res = await fetch(`${ui.studio().url}/`);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const api = await fetch(`${ui.studio().url}/v1/admin/resources/EventDefinition`);
    assert.equal(api.status, 401);
  });
});
