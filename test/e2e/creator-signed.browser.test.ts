/**
 * The creator makes a source a vendor can reach (issue #63), in Debian's Chromium against the
 * whole local environment (`npm start`): Lemon Squeezy's `order_created` webhook (its docs'
 * example, test/fixtures/sources/creator/SOURCES.md), a vendor outside the source catalogue, is
 * pasted; its rows become the catalogue's `purchase` (the order id, the total in cents scaled by
 * its currency, the currency: no EventDefinition), the generic `hmac` signature is chosen in the
 * page as Lemon Squeezy signs (X-Signature, HMAC-SHA256 of the body, hex), saved; the page shows
 * the URL to paste (and copies it), signs the sample in place and shows it stored, and a wrong
 * secret's 401. Then a delivery signed by the test as Lemon Squeezy's docs say lands as a
 * `purchase` row with its value, currency and transaction id; the same body with a bad signature
 * is refused with 401. The same page at 390 px never scrolls sideways. Screenshots go to
 * $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { recordPath } from '../../local/environment-record.ts';
import { putSecret } from '../../local/local-secrets.ts';
import { localInBrowser, pageProblems } from '../support/local-browser.ts';
import { assertNoSeriousAxeViolations, assertNoSidewaysScroll } from '../support/page-checks.ts';
import { until } from '../support/until.ts';

const SAMPLE = readFileSync(
  new URL('../fixtures/sources/creator/lemonsqueezy-order-created.json', import.meta.url),
  'utf8',
);
const SECRET = 'lemon-signing-secret-0123456789';

describe('end to end: the creator makes a signed vendor webhook a purchase', function () {
  this.timeout(300_000);
  const env = localInBrowser('eventbus-creator-signed-');
  const run = Date.now().toString(36);
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(env.shots, `signed-${name}.png`), fullPage: true });

  /** Pastes the sample, makes its rows purchases, fills the slots and chooses Lemon Squeezy's signature. */
  const draftSignedPurchase = async (page: Page, translator: string) => {
    await page.goto(env.studio());
    await page.getByLabel('Paste the raw data').fill(SAMPLE);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON, with a header row: 1 row, /).waitFor();
    await page.getByLabel('The rows become').selectOption('purchase');
    // The catalogue's required fields are slots; an empty one is named until it is filled.
    await page.getByLabel('Column for transaction_id').selectOption('');
    await page
      .getByText('transaction_id is required by purchase: choose the column that holds it.')
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await page.getByLabel('Column for transaction_id').selectOption('data.id');
    await page.getByLabel('Column for value').selectOption('data.attributes.total');
    // Lemon Squeezy's amounts are integers in cents beside a currency: offered in cents already.
    assert.equal(await page.getByLabel('value is in minor units (cents)').isChecked(), true);
    await page.getByLabel('Column for tax').selectOption('data.attributes.tax');
    assert.equal(await page.getByLabel('tax is in minor units (cents)').isChecked(), true);
    await page.getByLabel('Column for currency').selectOption('data.attributes.currency');
    await page.getByLabel('Endpoint (translator) name').fill(translator);
    await page.getByText('The sample row fits the purchase event.').waitFor();
    await page.getByLabel('The sender sends').selectOption('signature');
    await page.getByLabel('Signature scheme').selectOption('hmac');
    await page.getByLabel('header', { exact: true }).fill('X-Signature');
    await page.getByLabel('algorithm', { exact: true }).selectOption('sha256');
    await page.getByLabel('encoding', { exact: true }).selectOption('hex');
    const secretName = await page.getByLabel('Secret name (Secret Manager)').inputValue();
    assert.equal(secretName, `eventbus-translator-${translator}`);
    await page.getByLabel('Signing secret (signs the test only, not saved)').fill(SECRET);
    await page.getByText(`store its value as the secret ${secretName}`, { exact: false }).waitFor();
    return secretName;
  };

  it('chooses the signature in the page, saves a purchase source, and a signed delivery becomes a purchase row', async () => {
    const context = await env.browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    const errors = pageProblems(page);
    const secretName = await draftSignedPurchase(page, 'lemon-squeezy-orders');
    await shot(page, '1-drafted-1280');

    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/lemon-squeezy-orders: would be created 1.0').waitFor();
    // The catalogue's purchase is not redefined: the translator alone is saved.
    assert.equal(await page.getByText(/EventDefinition\//).count(), 0);
    const yaml = (await page.locator('#yaml').textContent()) ?? '';
    assert.match(yaml, /event: purchase/);
    assert.match(yaml, /scheme: hmac/);
    assert.match(yaml, new RegExp(`- ${secretName}`));
    assert.match(yaml, /major_units:\n\s+source: data\.attributes\.currency/);
    // The order number, guessed as transaction_id but not the slot's column, is kept under its own name.
    assert.match(yaml, /- target: data_attributes_order_number\n\s+source: data\.attributes\.order_number/);

    await page.getByRole('button', { name: 'Save and go live' }).click();
    const url = `${env.gateway()}/v1/translators/lemon-squeezy-orders`;
    await page.locator('#endpoint').getByText(url, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Copy the URL' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    // A signed source is tried signed: no Bearer token to make.
    assert.equal(
      await page.getByRole('button', { name: 'Create a token for this endpoint' }).isVisible(),
      false,
    );

    // The secret's value where the gateway reads it (npm start: the Secret Manager emulator).
    const { project } = JSON.parse(readFileSync(recordPath(env.dataDir), 'utf8')) as { project: string };
    await putSecret(`http://127.0.0.1:${env.ports['secret-manager']}`, project, secretName, SECRET);

    await until(
      'the signed sample accepted',
      async () => {
        await page.getByRole('button', { name: 'Send the sample, signed' }).click();
        await page.waitForFunction(
          () => document.getElementById('signed-status')?.textContent !== 'Sending…',
        );
        const status = (await page.locator('#signed-status').textContent()) ?? '';
        return status.includes('the gateway answered 200') ? true : undefined;
      },
      60_000,
      3000,
    );
    await page
      .getByText(/1 row stored in events\.purchase/)
      .waitFor({ timeout: 90_000 })
      .catch(async (err: unknown) => {
        await shot(page, 'failed-arrivals');
        throw err;
      });
    await shot(page, '2-signed-sample-stored-1280');
    await page.getByRole('button', { name: 'Send it with a wrong secret' }).click();
    await page
      .getByText(/with a wrong secret: the gateway answered 401, the signature refused, as it should be/)
      .waitFor();
    await shot(page, '3-wrong-secret-401-1280');
    assert.deepEqual(errors, []);
    await context.close();

    // Lemon Squeezy's delivery of another order, signed as its docs say: HMAC-SHA256 hex of the body.
    const order = `ls-${run}`;
    const body = SAMPLE.replace('"id": "1"', `"id": "${order}"`);
    assert.notEqual(body, SAMPLE);
    const post = (signature: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-event-name': 'order_created',
          'x-signature': signature,
        },
        body,
      });
    const good = createHmac('sha256', SECRET).update(body).digest('hex');
    const accepted = await post(good);
    assert.equal(accepted.status, 200, await accepted.text());
    const bad = await post(createHmac('sha256', `${SECRET}-not`).update(body).digest('hex'));
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');

    const rows = await until(
      'the purchase row in the warehouse',
      async () => {
        const [r] = await env.bigquery.query({
          query: `SELECT transaction_id, value, currency, tax FROM events.purchase WHERE transaction_id = @order`,
          params: { order },
        });
        return r.length > 0 ? r : undefined;
      },
      90_000,
      2000,
    );
    assert.deepEqual(rows, [{ transaction_id: order, value: 11.99, currency: 'USD', tax: 2 }]);
  });

  it('walks the same source at 390 px without the page scrolling sideways', async () => {
    const page = await env.browser.newPage({ viewport: { width: 390, height: 900 } });
    const errors = pageProblems(page);
    await draftSignedPurchase(page, 'lemon-squeezy-phone');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(`${env.gateway()}/v1/translators/lemon-squeezy-phone`, { exact: true })
      .waitFor();
    await shot(page, '4-saved-390');
    for (const part of ['slots', 'auth-choice', 'live'])
      await page.locator(`#${part}`).screenshot({ path: join(env.shots, `signed-390-${part}.png`) });
    // No sideways scroll of the page (the tables scroll in their own boxes), and no serious axe finding.
    await assertNoSidewaysScroll(page);
    await assertNoSeriousAxeViolations(page);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
