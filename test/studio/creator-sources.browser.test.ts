/**
 * The creator on vendors' own payloads (issue #38), in Debian's Chromium: a Stripe event, a
 * WooCommerce order and a GitHub webhook (test/fixtures/sources/SOURCES.md) pasted as they are,
 * read, and saved with no YAML edit and no column removed by hand; the registry then holds a
 * definition whose translator carries the inferred conversions. The same walk at 390 px wide
 * scrolls only inside the tables' own boxes, and every "Goes to" stays reachable. A wide GitHub
 * payload is cut down with the search and "Leave out all but…". Paddle's total in cents is
 * offered scaling with why, and becomes the preselected value once taken. Screenshots go to
 * $SCREENSHOTS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import { fileTokenStore } from '../../gateway/token-store.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-sources-admin-token-0123456789';
const source = (path: string) =>
  readFileSync(new URL(`../fixtures/sources/${path}`, import.meta.url), 'utf8');

const SAMPLES = [
  {
    vendor: 'stripe',
    path: 'stripe/checkout-session-completed.json',
    name: 'checkout_session_completed',
    guessed: true,
  },
  { vendor: 'woocommerce', path: 'woocommerce/order.json', name: 'woo_order_received', guessed: false },
  { vendor: 'github', path: 'github/issues-opened.json', name: 'github_issue_opened', guessed: false },
] as const;

describe('studio creator on vendors’ samples in a browser', function () {
  this.timeout(90_000);
  const ui = studioInBrowser('creator-sources', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(ui.shots, `sources-${name}.png`), fullPage: true });

  /**
   * Answers the blocking question a sample with old times asks (the vendors' examples are years
   * old): the arrival time, the column kept as a field. Saving waits for the answer.
   */
  async function answerOldTimes(page: Page): Promise<void> {
    await page.getByText(/fits? the definition/).waitFor({ timeout: 10_000 });
    if (!(await page.locator('#time-question').isVisible())) return;
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await page.getByLabel('Use the arrival time (the column is kept as a field)').check();
  }

  /** Paste, read, take the guesses (a name only where none was guessed), check, save. */
  async function pasteAndSave(page: Page, s: (typeof SAMPLES)[number], tag: string): Promise<void> {
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill(source(s.path));
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON, with a header row: 1 row/).waitFor();
    const name = page.getByLabel('Event name');
    if (s.guessed) {
      assert.equal(await name.inputValue(), s.name);
      await page.getByText(/Name guessed from type = "checkout\.session\.completed"/).waitFor();
    } else await name.fill(s.name);
    await page.getByText(`${s.name} is a good name.`).waitFor();
    await page.getByText('The sample row fits the definition.').waitFor({ timeout: 10_000 });
    await answerOldTimes(page);
    await shot(page, `${s.vendor}-${tag}-read`);
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText(`EventDefinition/${s.name}: would be created 1.0`).waitFor();
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(new RegExp(`/v1/translators/${s.name.replace(/_/g, '-')}-json$`))
      .waitFor();
    await shot(page, `${s.vendor}-${tag}-saved`);
  }

  for (const s of SAMPLES)
    it(`saves a ${s.vendor} sample as it is, with its conversions`, async () => {
      const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await pasteAndSave(page, s, 'wide');
      assert.deepEqual(errors, []);
      const registry = new RegistryClient(ui.bucket());
      const tr = await registry.readVersion('Translator', `${s.name.replace(/_/g, '-')}-json`, '1.0');
      const spec = tr.spec as TranslatorSpec;
      if (s.vendor === 'woocommerce') {
        // "29.35" is read as the number it is: the saved translator converts it.
        assert.deepEqual(spec.fields.find((f) => f.source === 'total')?.transforms, ['number']);
        assert.deepEqual(spec.fields.find((f) => f.source === 'date_created_gmt')?.transforms, [
          { timestamp: 'YYYY-MM-DDTHH:mm:ss', zone: 'UTC' },
        ]);
      }
      if (s.vendor === 'stripe') {
        // The event's own type names it, and a cancel URL is no page.
        assert.equal(
          spec.fields.find((f) => f.source === 'data.object.cancel_url')?.target,
          'data_object_cancel_url',
        );
        assert.ok(
          !spec.fields.some((f) => f.source === 'data.object.customer_email'),
          'always null: left out',
        );
      }
      await page.close();
    });

  it('at 390 px scrolls only inside the tables, with every “Goes to” reachable', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 390, height: 844 } });
    for (const sample of SAMPLES) {
      await page.goto('about:blank');
      await pasteAndSave(page, sample, 'phone');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${sample.vendor}: the page scrolls sideways by ${overflow}px`);
    }
    // The last column's "Goes to", scrolled into view inside the table's box, is on screen.
    const last = page.getByLabel('Where sender.site_admin goes');
    await last.scrollIntoViewIfNeeded();
    const box = await last.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
    await page
      .locator('#fields-section')
      .screenshot({ path: join(ui.shots, 'sources-github-phone-fields.png') });
    await page.close();
  });

  it('cuts a 215-field GitHub payload down with the search and “Leave out all but…”', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill(source('github/issues-opened.json'));
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON, with a header row: 1 row, 215 columns/).waitFor();
    await page.getByLabel('Event name').fill('github_issue_opened');
    await page.getByLabel('Find columns').fill('issue.title');
    await page.getByText(/^1 of 215 columns shown/).waitFor();
    await page.getByLabel('Find columns').fill('issue.');
    await page.getByRole('button', { name: 'Leave out all but the columns shown' }).click();
    await page.getByLabel('Find columns').fill('');
    const count = (await page.locator('#field-count').textContent()) ?? '';
    const kept = Number(/(\d+) kept/.exec(count)?.[1]);
    assert.ok(kept > 0 && kept < 100, count);
    assert.equal(await page.getByLabel('Where repository.full_name goes').inputValue(), 'skip');
    await page.getByText('The sample row fits the definition.').waitFor({ timeout: 10_000 });
    await shot(page, 'github-cut-down');
    await page.close();
  });

  it('checks rows as the endpoint does (its time window), and names the column in a refusal', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page
      .getByLabel('Paste the raw data')
      .fill('order,created_at,amount\nA-1,2015-01-04T10:00:00Z,12.50\n');
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page
      .getByText(/Event time: created_at names when it was created, but the sample’s times are outside/)
      .waitFor();
    await page.getByLabel('Event name').fill('order_placed');
    await page.getByText('The sample row fits the definition.').waitFor();
    // The person insists: the page refuses the row as the gateway would, the reason beside it.
    await page.getByLabel('Where created_at goes').selectOption('event_time');
    await page.getByText('The sample row would be refused: see the marked row.').waitFor();
    const check = page.locator('#preview tr.bad td').nth(1);
    assert.match((await check.textContent()) ?? '', /event_time: is too far in the (past|future): /);
    await page.getByLabel('Where created_at goes').selectOption('event_data');
    // Old times are a question the person answers before anything is saved, never replaced unasked.
    await page
      .getByText(
        /^created_at: its sample value falls outside the window the gateway accepts \(\d{4}-\d\d-\d\d \d\d:\d\d UTC to \d{4}-\d\d-\d\d \d\d:\d\d UTC\), e\.g\. "2015-01-04T10:00:00Z"\.$/,
      )
      .waitFor();
    await page.getByText(/Answer the question about created_at first/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await page.getByLabel('Use the arrival time (the column is kept as a field)').check();
    // A field name the registry would refuse is named by its column as it is typed, and the save
    // is held back (issue #80): the page runs the save's own rule, so no refused save is sent.
    await page.getByLabel('Field name for amount').fill('Amount In Euro');
    await page.getByText(/Field name "Amount In Euro" \(column amount\) must match/).waitFor();
    assert.equal(await page.getByLabel('Field name for amount').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await shot(page, 'refusals-by-column');
    await page.close();
  });

  it('offers Paddle’s minor units with why: its text total becomes the value only once taken', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill(source('paddle/transaction-completed.json'));
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON, with a header row: 1 row/).waitFor();
    assert.equal(await page.getByLabel('Event name').inputValue(), 'transaction_completed');
    await answerOldTimes(page);
    const offer = page.getByLabel('Amounts in data.details.totals.total are minor units (cents)');
    await page
      .locator('#minor-why')
      .getByText(
        /^Offered because Paddle sends amounts in minor units \(65215 is 652\.15 in a currency with cents\)/,
      )
      .waitFor();
    // Offered, not applied: the total's digits are text, so no number field is the value yet.
    assert.equal(await offer.isChecked(), false);
    const value = page.getByLabel('Value from');
    assert.equal(await value.inputValue(), '');
    assert.equal(await value.locator('option[value="value"]').count(), 0);
    // The payload's currency column is the currency: no fixed code is assumed beside it.
    assert.equal(await page.getByLabel('Currency', { exact: true }).inputValue(), 'currency');
    assert.equal(await page.getByLabel('Code', { exact: true }).inputValue(), '');
    await offer.check();
    assert.equal(await value.inputValue(), 'value');
    await page.getByText('The sample row fits the definition.').waitFor();
    await shot(page, 'paddle-minor-units');
    // Step 2's guesses down to the offer, and step 3's value and currency, as a person sees them.
    for (const [from, to, name] of [
      ['s2', 'field-search', 'step-2'],
      ['s3', 'consent-analytics', 'step-3'],
    ] as const) {
      const [top, bottom] = await page.evaluate(
        (ids) => ids.map((id) => (document.getElementById(id)?.getBoundingClientRect().top ?? 0) + scrollY),
        [from, to],
      );
      await page.screenshot({
        path: join(ui.shots, `sources-paddle-amounts-${name}.png`),
        fullPage: true,
        clip: { x: 0, y: (top ?? 0) - 8, width: 1280, height: (bottom ?? 0) - (top ?? 0) + 40 },
      });
    }
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('EventDefinition/transaction_completed: would be created 1.0').waitFor();
    const yaml = (await page.locator('#yaml').textContent()) ?? '';
    assert.match(yaml, /- name: value\n\s+type: number/);
    assert.match(
      yaml,
      /source: data\.details\.totals\.total\n\s+transforms:\n\s+- major_units:\n\s+source: data\.currency_code/,
    );
    // Taken back, the total is text again and leaves the value list.
    await offer.uncheck();
    assert.equal(await value.inputValue(), '');
    assert.equal(await value.locator('option[value="value"]').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('reads GA4’s events[] as the rows, and takes consent per purpose from a column', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    const body = {
      client_id: '123.456',
      events: [
        { name: 'sign_up', params: { method: 'email', marketing_consent: true } },
        { name: 'sign_up', params: { method: 'google', marketing_consent: false } },
      ],
    };
    await page.getByLabel('Paste the raw data').fill(JSON.stringify(body));
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON, with a header row: 2 rows/).waitFor();
    assert.equal(await page.getByLabel('Each item of "events" is one event').isChecked(), true);
    await page.getByText(/params\.marketing_consent reads like consent/).waitFor();
    assert.equal(await page.getByLabel('Where params.marketing_consent goes').inputValue(), 'event_data');
    await page.getByLabel('Ads', { exact: true }).selectOption('column:params.marketing_consent');
    await page.getByLabel('Analytics', { exact: true }).selectOption('granted');
    await page.getByLabel('Event name').fill('signed_up');
    await page.getByText('All 2 sample rows fit the definition.').waitFor();
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/signed-up-json: would be created 1.0').waitFor();
    const yaml = (await page.locator('#yaml').textContent()) ?? '';
    assert.match(yaml, /records: events/);
    assert.match(yaml, /target: consent\.ads\n\s+source: params\.marketing_consent/);
    assert.match(yaml, /target: consent\.analytics\n\s+value: granted/);
    // Unticked, the whole body is one row.
    await page.getByLabel('Each item of "events" is one event').uncheck();
    await page.getByText(/Read as JSON, with a header row: 1 row/).waitFor();
    await page.close();
  });

  it('reads an event hook’s nested data.events as the rows, and names the event as the registry takes it', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    const event = (uuid: string, email: string) => ({
      uuid,
      published: new Date().toISOString(),
      eventType: 'google_session_start',
      actor: { alternateId: email },
    });
    const body = {
      eventType: 'com.example.event_hook',
      eventId: 'b5a188b9-5ece-4636-b041-482ffda96311',
      data: {
        events: [
          event('a1b2c3d4-0000-4000-8000-000000000001', 'ada@example.com'),
          event('a1b2c3d4-0000-4000-8000-000000000002', 'bob@example.com'),
        ],
      },
    };
    await page.getByLabel('Paste the raw data').fill(JSON.stringify(body));
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON, with a header row: 2 rows/).waitFor();
    assert.equal(await page.getByLabel('Each item of "data.events" is one event').isChecked(), true);
    // Each element's own uuid is its id; the envelope's eventId is no column of the rows.
    assert.equal(await page.getByLabel('Where uuid goes').inputValue(), 'event_id');
    assert.equal(await page.getByLabel('Event name').inputValue(), 'session_start');
    await page
      .getByText(
        /Name guessed from eventType = "google_session_start", "google_" dropped: the registry refuses names starting with it/,
      )
      .waitFor();
    await page.getByText('session_start is a good name.').waitFor();
    await page.getByText('All 2 sample rows fit the definition.').waitFor();
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/session-start-json: would be created 1.0').waitFor();
    assert.match((await page.locator('#yaml').textContent()) ?? '', /records: data\.events/);
    await page.close();
  });
});

describe('studio creator: “Send the sample rows” when the endpoint stores nothing', function () {
  this.timeout(60_000);
  // A stand-in for the gateway that refuses every row, as `?partial=true` answers it.
  let gateway: Server | undefined;
  const options = {
    adminToken: TOKEN,
    gatewayUrl: 'http://127.0.0.1:9',
    tokens: fileTokenStore(join(mkdtempSync(join(tmpdir(), 'creator-send-')), 'tokens.json')),
  };
  before(async () => {
    gateway = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          messageIds: [null],
          invalidRows: 1,
          violations: [{ field: 'rows[0].event_time', description: 'is outside the accepted window' }],
        }),
      );
    });
    await new Promise<void>((r) => gateway?.listen(0, '127.0.0.1', r));
    options.gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  after(() => gateway?.close());
  const ui = studioInBrowser('creator-send', options);

  it('says the endpoint accepted none, and why, instead of waiting for rows that will not come', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill('order,amount\nA-1,12.50\n');
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByLabel('Event name').fill('order_placed');
    await page.getByText('The sample row fits the definition.').waitFor();
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(/order-placed-csv$/)
      .waitFor();
    await page.getByRole('button', { name: 'Create a token for this endpoint' }).click();
    await page.getByRole('button', { name: 'Send the sample rows' }).click();
    await page
      .getByText('The endpoint accepted 0 rows and refused 1: nothing will be stored. Why:')
      .waitFor();
    await page.getByText('rows[0].event_time: is outside the accepted window').waitFor();
    await page.close();
  });
});
