/**
 * The creator's catalogue targets and sender authentication (issue #63), in Debian's Chromium
 * against a studio on the Cloud Storage emulator: a CSV of orders becomes the catalogue's
 * `purchase` (each unmapped required field named until it is filled), saved as a Translator
 * alone, its URL-token choice in `spec.auth` and in the URL shown; a definition named `purchase`
 * is still refused as a redefinition; a signature's options come from the Translator schema and
 * land in `spec.auth.signature`. The signed round trip through a real gateway is
 * test/e2e/creator-signed.browser.test.ts. And what a person sees (#94): the confidence on a line
 * of its own, never glued to the why ("matches50% sure"); the first click on "Show what will be
 * saved" right after typing in a signature field works (the field's change used to disable the
 * button under the click); the "personal data" tick on a column kept beside a catalogue event's
 * slots is saved: the translator stores that column's SHA-256, never the e-mail in clear.
 */
import assert from 'node:assert/strict';
import { RegistryClient } from '../../adapters/registry.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-targets-admin-token-0123456789';
const ORDERS = ['order_no,order_total,currency_code', 'A-1,19.90,eur', 'A-2,5.00,eur'].join('\n');
const VENUE_ORDERS = [
  'order_no,order_total,currency_code,organizer_email',
  'A-1,19.90,eur,host@venue.example',
  'A-2,5.00,eur,host@venue.example',
].join('\n');

describe('studio creator: catalogue targets and the sender’s authentication', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('creator-targets', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  const open = async (width = 1280, sample = ORDERS) => {
    const page = await ui.browser().newPage({ viewport: { width, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill(sample);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as CSV/).waitFor();
    return { page, errors };
  };

  it('makes the rows purchases: each required field a slot, named while empty, saved as a translator alone', async () => {
    const { page, errors } = await open();
    await page.getByLabel('The rows become').selectOption('purchase');
    // No column is named like an order id here: the slot waits, named, and nothing can be saved.
    assert.equal(await page.getByLabel('Column for transaction_id').inputValue(), '');
    // Exact: the rows' check may quote the same words in its own status line meanwhile.
    await page
      .getByText('transaction_id is required by purchase: choose the column that holds it.', { exact: true })
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await page.getByLabel('Column for transaction_id').selectOption('order_no');
    await page.getByLabel('Column for value').selectOption('order_total');
    // Cents without a currency to scale them by: refused, never a currency assumed.
    await page.getByLabel('Column for currency').selectOption('');
    await page.getByLabel('value is in minor units (cents)').check();
    await page.getByText(/^value in cents need the currency they are in/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    // Or one currency typed for every record (issue #80): the cents are scaled by it.
    const fixed = page.getByLabel('No column holds the currency: every record is in');
    await fixed.fill('usd');
    // Scaled by USD now: 19.90 is no whole number of cents, so its row would be refused.
    await page.getByText('1 of 2 sample rows would be refused: see the marked row.').waitFor();
    assert.equal(await page.locator('#slot-errors li').count(), 0);
    await fixed.fill('');
    await page.getByText(/^value in cents need the currency they are in/).waitFor();
    await page.getByLabel('value is in minor units (cents)').uncheck();
    await page.getByLabel('Column for currency').selectOption('currency_code');
    await page.getByLabel('Endpoint (translator) name').fill('shop-orders');
    await page.getByText('All 2 sample rows fit the purchase event.').waitFor();
    assert.equal(await page.locator('#slot-errors li').count(), 0);
    await page.getByLabel('The sender sends').selectOption('url_token');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/shop-orders: would be created 1.0').waitFor();
    assert.equal(await page.getByText(/EventDefinition\//).count(), 0);
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText('http://127.0.0.1:8080/v1/translators/shop-orders?key=YOUR_TOKEN', { exact: true })
      .waitFor();
    const registry = new RegistryClient(ui.bucket());
    const spec = (await registry.readVersion('Translator', 'shop-orders', '1.0')).spec as TranslatorSpec;
    assert.equal(spec.event, 'purchase');
    assert.deepEqual(spec.auth, { url_token: true });
    assert.deepEqual(
      spec.fields.filter((f) => ['transaction_id', 'value', 'currency'].includes(f.target)),
      [
        { target: 'transaction_id', source: 'order_no' },
        { target: 'value', source: 'order_total', transforms: ['number'] },
        { target: 'currency', source: 'currency_code', transforms: ['trim', 'uppercase'] },
      ],
    );
    const index = await registry.readIndex('EventDefinition');
    assert.equal(Object.hasOwn(index.index.resources, 'purchase'), false, 'purchase is not redefined');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('still refuses a definition that would redefine a catalogue event, and says how to fill it instead', async () => {
    const { page } = await open();
    await page.getByLabel('Event name').fill('purchase');
    await page
      .getByText(
        /purchase is a built-in catalogue event: it cannot be redefined; to fill it, choose it under "The rows become"/,
      )
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await page.close();
  });

  it('takes a signature’s options from the schema, and saves them with the secret’s name, never its value', async () => {
    const { page } = await open();
    await page.getByLabel('Event name').fill('shop_order');
    await page.getByText('All 2 sample rows fit the definition.').waitFor();
    await page.getByLabel('The sender sends').selectOption('signature');
    // The generic form's options only for `hmac`; a vendor scheme fixes them.
    await page.getByLabel('Signature scheme').selectOption('github');
    assert.equal(await page.getByLabel('header', { exact: true }).isVisible(), false);
    await page.getByLabel('Signature scheme').selectOption('hmac');
    await page.getByLabel('header', { exact: true }).fill('X-Shop-Signature');
    await page.getByLabel('algorithm', { exact: true }).selectOption('sha1');
    await page.getByLabel('encoding', { exact: true }).selectOption('base64');
    assert.equal(
      await page.getByLabel('Secret name (Secret Manager)').inputValue(),
      'eventbus-translator-shop-order-csv',
    );
    await page.getByLabel('Signing secret (signs the test only, not saved)').fill('do-not-save-me');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(/\/v1\/translators\/shop-order-csv$/)
      .waitFor();
    // A signed source is tried signed; the token's try is not offered.
    assert.equal(await page.getByRole('button', { name: 'Send the sample, signed' }).isVisible(), true);
    assert.equal(
      await page.getByRole('button', { name: 'Create a token for this endpoint' }).isVisible(),
      false,
    );
    const tr = await new RegistryClient(ui.bucket()).readVersion('Translator', 'shop-order-csv', '1.0');
    assert.deepEqual((tr.spec as TranslatorSpec).auth, {
      signature: {
        scheme: 'hmac',
        secrets: ['eventbus-translator-shop-order-csv'],
        header: 'X-Shop-Signature',
        algorithm: 'sha1',
        encoding: 'base64',
      },
    });
    assert.doesNotMatch(JSON.stringify(tr), /do-not-save-me/);
    await page.close();
  });

  // What a person sees (#94): the confidence on its own line, the first click after typing in a
  // signature field, the "personal data" tick under a catalogue event.
  it('shows the confidence on a line of its own, never run into the why', async () => {
    const { page, errors } = await open(1280, VENUE_ORDERS);
    const cells = await page
      .locator('#fields td.guess')
      .evaluateAll((tds) => tds.map((td) => (td as HTMLElement).innerText));
    assert.ok(
      cells.some((t) => /% sure/.test(t)),
      cells.join(' | '),
    );
    for (const text of cells) {
      assert.doesNotMatch(text, /(?<![\s\d])\d{1,3}% sure/, `glued: ${text}`);
      if (/% sure/.test(text)) assert.match(text, /\n\d{1,3}% sure\./, text);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('takes the first click on "Show what will be saved" right after typing in a signature field', async () => {
    const { page, errors } = await open(1280, VENUE_ORDERS);
    await page.getByLabel('Event name').fill('shop_order');
    await page.getByText('All 2 sample rows fit the definition.').waitFor();
    await page.getByLabel('The sender sends').selectOption('signature');
    await page.getByLabel('Signature scheme').selectOption('hmac');
    await page.getByLabel('algorithm', { exact: true }).selectOption('sha256');
    // Typed, focus still in the field: the one click below is what leaves it.
    await page.getByLabel('header', { exact: true }).fill('X-Shop-Signature');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/shop-order-csv: would be created 1.0').waitFor({ timeout: 5000 });
    assert.match((await page.locator('#yaml').textContent()) ?? '', /header: X-Shop-Signature/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('takes the first click on "Show what will be saved" right after typing the secret’s name or value', async () => {
    for (const [label, value, saved] of [
      ['Secret name (Secret Manager)', 'SHOP_SIGNING', /- SHOP_SIGNING/],
      ['Signing secret (signs the test only, not saved)', 'typed-last', /scheme: hmac/],
    ] as const) {
      const { page, errors } = await open(1280, VENUE_ORDERS);
      await page.getByLabel('Event name').fill('shop_order');
      await page.getByText('All 2 sample rows fit the definition.').waitFor();
      await page.getByLabel('The sender sends').selectOption('signature');
      await page.getByLabel('Signature scheme').selectOption('hmac');
      // Typed, focus still in the field: the one click below is what leaves it.
      await page.getByLabel(label).fill(value);
      await page.getByRole('button', { name: 'Show what will be saved' }).click();
      await page.getByText('Translator/shop-order-csv: would be created 1.0').waitFor({ timeout: 5000 });
      const yaml = (await page.locator('#yaml').textContent()) ?? '';
      assert.match(yaml, saved, label);
      assert.doesNotMatch(yaml, /typed-last/);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  it('saves the "personal data" tick of a column kept under a catalogue event: stored hashed, not in clear', async () => {
    const { page, errors } = await open(1280, VENUE_ORDERS);
    await page.getByLabel('The rows become').selectOption('purchase');
    await page.getByLabel('Column for transaction_id').selectOption('order_no');
    await page.getByLabel('Column for value').selectOption('order_total');
    await page.getByLabel('Column for currency').selectOption('currency_code');
    await page.getByLabel('Endpoint (translator) name').fill('venue-orders');
    // The organizer's e-mail is not the buyer's: kept as an event field of its own, and personal.
    await page.getByLabel('Where organizer_email goes').selectOption('event_data');
    const tick = page.getByLabel('organizer_email is personal data');
    await tick.check();
    await page.getByText('All 2 sample rows fit the purchase event.').waitFor();
    await page.getByLabel('The sender sends').selectOption('url_token');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/venue-orders: would be created 1.0').waitFor();
    const yaml = (await page.locator('#yaml').textContent()) ?? '';
    assert.match(yaml, /source: organizer_email\n\s+transforms:\n(\s+- \w+\n)*\s+- sha256/);
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(/venue-orders/)
      .first()
      .waitFor();
    const registry = new RegistryClient(ui.bucket());
    const spec = (await registry.readVersion('Translator', 'venue-orders', '1.0')).spec as TranslatorSpec;
    const organizer = spec.fields.find((f) => 'source' in f && f.source === 'organizer_email');
    assert.ok(organizer, JSON.stringify(spec.fields));
    assert.equal(organizer.transforms?.at(-1), 'sha256');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('says which of a vendor’s delivery fields are left out of the event, and what keys it', async () => {
    const webhook = JSON.stringify({
      event_id: 'evt_7gHk2LmN',
      type: 'payment.succeeded',
      attempt_number: 2,
      data: { id: 'pay_1', amount: 49.9, currency: 'EUR' },
    });
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill(webhook);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/Read as JSON/).waitFor();
    const note = page.locator('#identity-note');
    await note.getByText(/attempt_number counts the vendor's delivery attempts/).waitFor();
    assert.match((await note.textContent()) ?? '', /Left out of the event/);
    await page.close();
  });
});
