/**
 * The creator end to end, in Debian's Chromium against the whole local environment (`npm start`):
 * a person pastes a German spreadsheet export, maps its columns, chooses Meta's `Lead` with the
 * amount as value in euros and consent given at collection, sees the exact payloads, saves,
 * creates a token, and sends the sample through the live endpoint from the page. The rows then
 * stand typed in the warehouse, the page shows them and the deliveries, and the Meta stand-in has
 * received three Leads with the value, the currency and the hashed e-mail. A second walk pastes
 * NDJSON with a nested address and sees its rows arrive too. A third walk pastes vendors' own
 * payloads (a WooCommerce order, a Stripe event, a GitHub webhook: test/fixtures/sources/) with no
 * edit beyond a name where none is guessed and taking Stripe's offer of minor units, sees the
 * value and currency preselected, and they arrive typed through the real gateway. A
 * fourth pastes Mailchimp's webhook form post, saves a form translator with no edit, sends the
 * sample as Mailchimp does (application/x-www-form-urlencoded), and its row arrives typed; the
 * same walk at 390 px wide, the post chosen as a .form file, never scrolls the page sideways.
 * Screenshots of each step go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { localInBrowser, pageProblems } from '../support/local-browser.ts';
import { until } from '../support/until.ts';

interface Received {
  destination: string;
  body: {
    data?: {
      event_name: string;
      custom_data?: Record<string, unknown>;
      user_data?: Record<string, unknown>;
    }[];
  };
}

describe('end to end: the creator from a sample to Leads at Meta', function () {
  this.timeout(240_000);
  const env = localInBrowser('eventbus-creator-');
  const run = Date.now().toString(36);
  // Recent days as the export writes them: Meta takes events of the last 7 days only.
  const day = (back: number) =>
    new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10).split('-').reverse().join('.');
  const CSV = [
    'Anfrage;E-Mail;Betrag;Datum;Produkt',
    `A-${run}-1;ana@example.com;1.234,50;${day(1)};"Dachziegel; rot"`,
    `A-${run}-2;Ben@Example.com ;99,90;${day(2)};Dachrinne`,
    `A-${run}-3;cy@example.com;12,00;${day(3)};Fenster`,
  ].join('\n');

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(env.shots, `e2e-${name}.png`), fullPage: true });
  /** The vendors' examples are years old: the page asks which time to take; the arrival time. */
  const answerOldTimes = async (page: Page) => {
    if (await page.locator('#time-question').isVisible())
      await page.getByLabel('Use the arrival time (the column is kept as a field)').check();
  };
  /** Saves the checked draft and waits for the endpoint's URL; then a token, shown once. */
  const saveAndMakeToken = async (page: Page, translator: string): Promise<string> => {
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(new RegExp(`/v1/translators/${translator}$`))
      .waitFor();
    await page.getByRole('button', { name: 'Create a token for this endpoint' }).click();
    await page.locator('#token-once').waitFor();
    // A token made in the studio expires (90 days unless the settings say otherwise), and says when.
    await page
      .locator('#token-expiry')
      .getByText(/^It expires on \d{4}-\d\d-\d\d\.$/)
      .waitFor();
    return (await page.locator('#token').textContent()) ?? '';
  };
  /**
   * The gateway reads the registry on the request path (a copy at most 30 s old): presses "Send
   * the sample rows" again until the endpoint accepts them, as a person would.
   */
  const sendUntilAccepted = (page: Page, rows: number) =>
    until(
      'the endpoint live and the sample accepted',
      async () => {
        await page.getByRole('button', { name: 'Send the sample rows' }).click();
        await page.waitForFunction(() => document.getElementById('send-status')?.textContent !== 'Sending…');
        const status = (await page.locator('#send-status').textContent()) ?? '';
        return status.includes(`accepted ${rows} row`) ? true : undefined;
      },
      60_000,
      3000,
    );
  /** Sends a one-row sample and waits for the page to show it stored (a screenshot if not). */
  const sendOneAndSeeItStored = async (page: Page, name: string) => {
    await sendUntilAccepted(page, 1);
    await page
      .getByText(new RegExp(`1 row stored in events\\.${name}`))
      .waitFor({ timeout: 90_000 })
      .catch(async (err: unknown) => {
        await shot(page, `failed-${name}`);
        throw err;
      });
  };
  const leads = async (): Promise<NonNullable<Received['body']['data']>> => {
    const r = (await (await fetch(`http://127.0.0.1:${env.ports['receiver']}/received.json`)).json()) as {
      received: Received[];
    };
    return r.received
      .filter((x) => x.destination === 'meta')
      .flatMap((x) => x.body.data ?? [])
      .filter((e) => e.event_name === 'Lead');
  };

  it('maps a CSV export to Meta’s Lead, shows the payloads, saves, sends the sample and shows it arrive', async () => {
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = pageProblems(page);
    await page.goto(env.studio());
    await page.getByLabel('Paste the raw data').fill(CSV);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as CSV \(delimiter ";"\), with a header row: 3 rows, /).waitFor();
    await page.getByLabel('Event name').fill('quote_asked');
    await page.getByText('quote_asked is a good name.').waitFor();
    await page.getByLabel('Where Anfrage goes').selectOption('event_id');
    await page.getByLabel('Where Datum goes').selectOption('event_time');
    await page.getByLabel('Where E-Mail goes').selectOption('user.email');
    await page.getByLabel('Where Betrag goes').selectOption('event_data');
    await page.getByLabel('Field name for Betrag').fill('amount');
    await page.getByLabel('Where Anfrage goes').selectOption('event_data');
    await page.getByLabel('Field name for Anfrage').fill('order_id');
    await page.getByText('All 3 sample rows fit the definition.').waitFor();

    // Step 3: before consent is given, the page says why nothing would reach Meta.
    await page.getByLabel('Meta', { exact: true }).selectOption('Lead');
    await page.getByText(/Meta receives an event only with consent to ads and ad user data/).waitFor();
    // Betrag was guessed as the value: preselected under the name it was given, in euros by
    // default (no column holds a currency).
    assert.equal(await page.getByLabel('Value from').inputValue(), 'amount');
    assert.equal(await page.getByLabel('Currency', { exact: true }).inputValue(), '');
    assert.equal(await page.getByLabel('Code', { exact: true }).inputValue(), 'EUR');
    // Consent per purpose: Meta needs ads and ad user data; here both were given at collection.
    await page.getByLabel('Ads', { exact: true }).selectOption('granted');
    await page.getByLabel('Ad user data', { exact: true }).selectOption('granted');
    assert.equal(await page.locator('#consent-note').textContent(), '');
    await page.getByRole('button', { name: 'Show what each destination receives' }).click();
    const meta = page.locator('.payload', { hasText: 'meta (meta_capi): sends' });
    await meta.waitFor();
    const payload = (await meta.locator('pre').textContent()) ?? '';
    assert.match(payload, /"event_name": "Lead"/);
    assert.match(payload, /"value": 1234.5/);
    assert.match(payload, /"currency": "EUR"/);
    const ana = createHash('sha256').update('ana@example.com').digest('hex');
    assert.ok(payload.includes(ana), payload);
    await shot(page, '1-platform-payloads');
    // docs/studio.md shows this section (SCREENSHOTS=docs/img refreshes it).
    await page.locator('#platforms-section').screenshot({ path: join(env.shots, 'creator-platforms.png') });

    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('EventDefinition/quote_asked: would be created 1.0').waitFor();
    const token = await saveAndMakeToken(page, 'quote-asked-csv');
    assert.match(token, /^ebt_[0-9a-f]{12}_/);
    await sendUntilAccepted(page, 3);
    await page
      .getByText(/3 rows stored in events\.quote_asked/)
      .waitFor({ timeout: 90_000 })
      .catch(async (err: unknown) => {
        await shot(page, 'failed-arrivals');
        throw err;
      });
    const stored = page.getByRole('table', { name: 'Stored rows' });
    assert.equal(await stored.locator('tbody tr').count(), 3);
    assert.match((await stored.textContent()) ?? '', /Dachziegel; rot/);
    await shot(page, '2-sent-and-arrived');
    // The README and docs/studio.md show this section (SCREENSHOTS=docs/img refreshes it).
    await page.locator('#live').screenshot({ path: join(env.shots, 'creator-arrivals.png') });
    assert.deepEqual(errors, []);

    const [rows] = await env.bigquery.query({
      query: `SELECT event_id, order_id, amount, definition_version FROM events.quote_asked WHERE STARTS_WITH(order_id, 'A-${run}-') ORDER BY amount`,
    });
    assert.deepEqual(
      (rows as { event_id: string; order_id: string; amount: number; definition_version: string }[]).map(
        (r) => [r.amount, r.definition_version],
      ),
      [
        [12, 'quote_asked@1.0'],
        [99.9, 'quote_asked@1.0'],
        [1234.5, 'quote_asked@1.0'],
      ],
    );
    const got = await until(
      'three Leads at the Meta stand-in',
      async () => {
        const l = await leads();
        return new Set(l.map((e) => e.custom_data?.['value'])).size >= 3 ? l : undefined;
      },
      60_000,
    );
    const ben = got.find((e) => e.custom_data?.['value'] === 99.9);
    assert.equal(ben?.custom_data?.['currency'], 'EUR');
    // Trimmed and lower-cased before hashing, as Meta documents.
    assert.deepEqual(ben?.user_data?.['em'], [createHash('sha256').update('ben@example.com').digest('hex')]);

    // The explorer shows the same event whole: stored once, its ledger, Meta's Lead.
    const id = (rows as { event_id: string; amount: number }[]).find((r) => r.amount === 99.9)?.event_id;
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByLabel('Event id').fill(String(id));
    await page.getByRole('button', { name: 'Show the event' }).click();
    await page.getByText(/Stored 1 time\(s\), refused 0 time\(s\), \d+ ledger row/).waitFor();
    assert.equal(new URL(page.url()).search, `?event_id=${id}`);
    const ledger = await page.getByRole('table', { name: 'Ledger' }).locator('tbody tr').allInnerTexts();
    assert.ok(
      ledger.some((r) => /meta\s+delivered/.test(r)),
      ledger.join('\n'),
    );
    assert.ok(
      ledger.some((r) => /ga4\s+skipped\s+unknown event quote_asked has no mapping/.test(r)),
      ledger.join('\n'),
    );
    const sent =
      (await page.locator('.payload', { hasText: 'meta (meta_capi): sends' }).locator('pre').textContent()) ??
      '';
    assert.match(sent, /"event_name": "Lead"/);
    assert.match(sent, /"value": 99.9/);
    assert.match(
      (await page.getByLabel('Stored row 1').textContent()) ?? '',
      /"definition_version": "quote_asked@1\.0"/,
    );
    // The webhook gets the stored event as it is (received_at at the top, not in event_data).
    const hook =
      (await page
        .locator('.payload', { hasText: 'webhook (webhook): sends' })
        .locator('pre')
        .textContent()) ?? '';
    const hookBody = JSON.parse(hook.slice(hook.indexOf('\n\n') + 2)) as Record<string, unknown>;
    assert.equal(typeof hookBody['received_at'], 'string');
    assert.deepEqual(Object.keys(hookBody['event_data'] as object).sort(), ['amount', 'order_id', 'produkt']);
    await shot(page, '4-explorer');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('takes NDJSON with nested paths through the same steps', async () => {
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = pageProblems(page);
    await page.goto(env.studio());
    const lines = [1, 2].map((n) =>
      JSON.stringify({
        ticket: `T-${run}-${n}`,
        contact: { mail: `t${n}@example.com`, city: 'Köln' },
        score: n * 5,
      }),
    );
    await page.getByLabel('Paste the raw data').fill(`${lines.join('\n')}\n`);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as NDJSON/).waitFor();
    await page.getByLabel('Event name').fill('ticket_scored');
    await page.getByLabel('Where contact.mail goes').selectOption('user.email');
    await page.getByText('All 2 sample rows fit the definition.').waitFor();
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await saveAndMakeToken(page, 'ticket-scored-ndjson');
    await sendUntilAccepted(page, 2);
    await page.getByText(/2 rows stored in events\.ticket_scored/).waitFor({ timeout: 90_000 });
    await shot(page, '3-ndjson-arrived');
    assert.deepEqual(errors, []);
    const [rows] = await env.bigquery.query({
      query: `SELECT ticket, user.email AS email FROM events.ticket_scored WHERE STARTS_WITH(ticket, 'T-${run}-') ORDER BY ticket`,
    });
    assert.deepEqual(
      (rows as { ticket: string; email: string }[]).map((r) => [r.ticket, r.email]),
      [
        [`T-${run}-1`, 't1@example.com'],
        [`T-${run}-2`, 't2@example.com'],
      ],
    );
    await page.close();
  });

  /**
   * Step 3 as the guesses leave it: the order's total preselected as the value, the payload's
   * currency column as the currency (no fixed code then), and Stripe's cents offered with why,
   * unticked until the person takes the offer, as a person reading it would.
   */
  const seeAmountGuesses = async (page: Page, path: string) => {
    const money = !path.startsWith('github/');
    assert.equal(await page.getByLabel('Value from').inputValue(), money ? 'value' : '');
    assert.equal(await page.getByLabel('Currency', { exact: true }).inputValue(), money ? 'currency' : '');
    assert.equal(await page.getByLabel('Code', { exact: true }).inputValue(), money ? '' : 'EUR');
    const offer = page.getByLabel('Amounts in data.object.amount_total are minor units (cents)');
    if (!path.startsWith('stripe/')) {
      assert.equal(await page.locator('#minor-offer').isVisible(), false);
      return;
    }
    await page
      .locator('#minor-why')
      .getByText(
        /^Offered because Stripe sends amounts in minor units \(25000 is 250\.00 in a currency with cents\)/,
      )
      .waitFor();
    assert.equal(await offer.isChecked(), false);
    await offer.check();
    await page.getByText('The sample row fits the definition.').waitFor();
  };

  it('takes vendors’ own payloads as they are, and they arrive typed through the real gateway', async () => {
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = pageProblems(page);
    const source = (path: string) =>
      readFileSync(new URL(`../fixtures/sources/${path}`, import.meta.url), 'utf8');
    for (const [path, name] of [
      ['woocommerce/order.json', 'woo_order_received'],
      ['stripe/checkout-session-completed.json', 'checkout_session_completed'],
      ['github/issues-opened.json', 'github_issue_opened'],
    ] as const) {
      // A fresh page for each (the same address with only its #token would not reload it).
      await page.goto('about:blank');
      await page.goto(env.studio());
      await page.getByLabel('Paste the raw data').fill(source(path));
      await page.getByRole('button', { name: 'Read the sample' }).click();
      await page.getByText(/Read as JSON, with a header row: 1 row/).waitFor();
      const input = page.getByLabel('Event name');
      // Stripe's event names itself (its `type`); the others get a name; beyond the old times'
      // question, the only edit is taking Stripe's offer of minor units.
      if ((await input.inputValue()) !== name) await input.fill(name);
      await page.getByText('The sample row fits the definition.').waitFor();
      await answerOldTimes(page);
      await seeAmountGuesses(page, path);
      await page.getByRole('button', { name: 'Show what will be saved' }).click();
      await page.getByText(`EventDefinition/${name}: would be created 1.0`).waitFor();
      await saveAndMakeToken(page, `${name.replace(/_/g, '-')}-json`);
      await sendOneAndSeeItStored(page, name);
      await shot(page, `5-${name}-arrived`);
    }
    assert.deepEqual(errors, []);
    // Typed in the warehouse: WooCommerce's "29.35" as a number, Stripe's 25000 cents as 250.00
    // (the offer taken), each order's total as the value beside its currency, the buyer's e-mail
    // as the person's.
    const [woo] = await env.bigquery.query({
      query:
        'SELECT value, currency, shipping_total, number, user.email AS email FROM events.woo_order_received',
    });
    assert.deepEqual(woo, [
      { value: 29.35, currency: 'USD', shipping_total: 10, number: '727', email: 'john.doe@example.com' },
    ]);
    const [stripe] = await env.bigquery.query({
      query: 'SELECT value, currency, user.email AS email, livemode FROM events.checkout_session_completed',
    });
    assert.deepEqual(stripe, [
      { value: 250, currency: 'USD', email: 'example@example.com', livemode: false },
    ]);
    const [gh] = await env.bigquery.query({
      query: 'SELECT issue_number, issue_locked, user_id FROM events.github_issue_opened',
    });
    assert.deepEqual(gh, [{ issue_number: 1, issue_locked: false, user_id: '21031067' }]);
    await page.close();
  });

  it('takes Mailchimp’s form post, saves a form translator, and its row arrives typed, at 1280 and 390 px', async () => {
    const file = new URL('../fixtures/sources/mailchimp/subscribe.form', import.meta.url);
    // The guessed name as it is; on the phone another name, so it is a second definition.
    for (const [width, name] of [
      [1280, 'subscribe_webhook'],
      [390, 'mailchimp_subscribed'],
    ] as const) {
      const page = await env.browser.newPage({ viewport: { width, height: 900 } });
      const errors = pageProblems(page);
      // How far the page scrolls sideways, and which elements stick out of it (not out of a box
      // that scrolls on its own).
      const sideways = () =>
        page.evaluate(() => {
          const boxed = (e: Element) => {
            for (let p = e.parentElement; p && p !== document.body; p = p.parentElement)
              if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true;
            return false;
          };
          const out = [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !boxed(e))
            .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}`);
          return { by: document.documentElement.scrollWidth - window.innerWidth, out: out.slice(0, 5) };
        });
      await page.goto(env.studio());
      // Pasted on the wide page; on the phone the same post chosen as a .form file.
      if (width === 1280) {
        await page.getByLabel('Paste the raw data').fill(readFileSync(file, 'utf8'));
        await page.getByRole('button', { name: 'Read the sample' }).click();
      } else await page.getByLabel('File', { exact: true }).setInputFiles(fileURLToPath(file));
      await page
        .getByText(/Read as a form post \(application\/x-www-form-urlencoded\).*: 1 row, 12 columns/)
        .waitFor();
      assert.equal(await page.getByLabel('Where data.merges.FNAME goes').inputValue(), 'event_data');
      const input = page.getByLabel('Event name');
      assert.equal(await input.inputValue(), 'subscribe_webhook');
      if (name !== 'subscribe_webhook') await input.fill(name);
      await page.getByText('The sample row fits the definition.').waitFor();
      await answerOldTimes(page);
      await page.getByRole('button', { name: 'Show what will be saved' }).click();
      await page.getByText(`Translator/${name.replace(/_/g, '-')}-form: would be created 1.0`).waitFor();
      assert.match((await page.locator('#yaml').textContent()) ?? '', /format:\n\s+type: form/);
      await saveAndMakeToken(page, `${name.replace(/_/g, '-')}-form`);
      assert.match(
        (await page.locator('#curl').textContent()) ?? '',
        /Content-Type: application\/x-www-form-urlencoded/,
      );
      await sendOneAndSeeItStored(page, name);
      await shot(page, `6-mailchimp-form-${width}`);
      await page.locator('#live').screenshot({ path: join(env.shots, `e2e-mailchimp-live-${width}.png`) });
      const wide = await sideways();
      assert.ok(
        wide.by <= 0,
        `${width} px: the page scrolls sideways by ${wide.by}px (${wide.out.join(', ')})`,
      );
      assert.deepEqual(errors, []);
      // Typed in the warehouse: fired_at a timestamp read as UTC, the nested merge fields text,
      // the subscriber's e-mail as the person's (user.email); its copy among the merge fields
      // (marked personal data by its format) and the first name there (a person's name inside an
      // object that names no party, lower-cased first as names are) hashed as the settings say.
      const [rows] = await env.bigquery.query({
        query: `SELECT fired_at, data_merges_fname, data_merges_interests, data_merges_email, user.email AS email FROM events.${name}`,
      });
      const row = (rows as { fired_at: { value: string }; [k: string]: unknown }[])[0];
      assert.equal(new Date(row?.fired_at.value ?? '').toISOString(), '2009-03-26T21:35:57.000Z');
      assert.deepEqual(
        [
          row?.['data_merges_fname'],
          row?.['data_merges_interests'],
          row?.['data_merges_email'],
          row?.['email'],
        ],
        [
          createHash('sha256').update('mailchimp').digest('hex'),
          'Group1,Group2',
          createHash('sha256').update('api@mailchimp.com').digest('hex'),
          'api@mailchimp.com',
        ],
      );
      await page.close();
    }
  });
});
