/**
 * The event type carried in a header, on the creator's page (#94), in Debian's Chromium against a
 * studio on the Cloud Storage emulator: Shopify's `orders/create` body (its docs' example,
 * test/fixtures/sources/SOURCES.md) is pasted with the headers its delivery carried, as a curl
 * command's `-H` options. The page offers `X-Shopify-Topic` (never the HMAC header) as what tells
 * the event type, the person picks it, the type is named from the header's value, the row check
 * reads the header as the gateway will, and the saved translator names the event from
 * `header:X-Shopify-Topic` through a lookup, with no header value or secret saved.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryClient } from '../../adapters/registry.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { assertNoSidewaysScroll } from '../support/page-checks.ts';
import { creatorWithSample, studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-headers-admin-token-0123456789';
const ORDER = readFileSync(
  new URL('../fixtures/sources/shopify/order-created.json', import.meta.url),
  'utf8',
);
const CURL = [
  "curl -X POST 'https://hooks.example.test/shopify' \\",
  "  -H 'Content-Type: application/json' \\",
  "  -H 'X-Shopify-Topic: orders/create' \\",
  "  -H 'X-Shopify-Hmac-Sha256: XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM=' \\",
  "  -H 'X-Shopify-Webhook-Id: b54557e4-bdd9-4b37-8a5f-bf7d70bcd043' \\",
  '  --data-binary @order.json',
].join('\n');

describe('studio creator: the event type carried in a header', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('creator-headers', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  it('offers the topic header as the discriminator, and saves a translator that reads it', async () => {
    const { page, errors } = await creatorWithSample(
      ui.browser(),
      `${ui.studio().url}/#token=${TOKEN}`,
      ORDER,
    );
    // A pasted body has no type of its own: no offer until the headers are given.
    assert.equal(await page.locator('#multi-type').isVisible(), false);
    await page.getByLabel(/^Its headers \(optional\)/).fill(CURL);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    const chooser = page.getByLabel('The event type is told by the header');
    await chooser.waitFor();
    const offered = await chooser.locator('option').allTextContents();
    assert.deepEqual(offered, ['none: the body alone says it', 'X-Shopify-Topic (orders/create)']);
    await chooser.selectOption('X-Shopify-Topic');
    const offer = page.getByLabel(
      /^One event per type: the rows are told apart by header:X-Shopify-Topic \(1 type\)/,
    );
    await offer.waitFor();
    assert.equal(await offer.isChecked(), true);
    assert.equal(await page.getByLabel('Event name').inputValue(), 'orders_create');
    await page.getByText('The sample row fits the definition of its one type.').waitFor();
    // Each question's options stand one under another, a radio beside its own label: two short
    // options never share a line ("…an amount ◯ total_line_items_price_set…", #94).
    const options = page.locator('fieldset.question .pair');
    assert.ok((await options.count()) > 2, 'the order asks which amount is the value');
    const lines = await options.evaluateAll((pairs) =>
      pairs
        .filter((p) => p.getClientRects().length > 0)
        .map((p) => {
          const [radio, label] = [p.querySelector('input'), p.querySelector('label')];
          const r = radio?.getBoundingClientRect();
          const l = label?.getBoundingClientRect();
          return {
            top: p.getBoundingClientRect().top,
            beside: !!r && !!l && r.right <= l.left && r.top < l.bottom,
          };
        }),
    );
    for (let i = 1; i < lines.length; i++)
      assert.ok((lines[i]?.top ?? 0) > (lines[i - 1]?.top ?? 0), `option ${i} on a line of its own`);
    assert.ok(
      lines.every((l) => l.beside),
      'every radio beside its label',
    );
    await page.locator('#s1').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ui.shots, 'creator-headers.png'), fullPage: true });

    await page.getByLabel('Endpoint (translator) name').fill('shopify-orders');
    await page.getByLabel('The sender sends').selectOption('url_token');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Translator/shopify-orders: would be created 1.0').waitFor();
    const yaml = (await page.locator('#yaml').textContent()) ?? '';
    assert.match(
      yaml,
      /target: event_name\n\s+source: header:X-Shopify-Topic\n\s+transforms:\n\s+- lookup:\n\s+orders\/create: orders_create/,
    );
    assert.doesNotMatch(yaml, /XWmrwMey6|Hmac/, 'no header value or signature is saved');
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(/shopify-orders/)
      .first()
      .waitFor();

    const registry = new RegistryClient(ui.bucket());
    const spec = (await registry.readVersion('Translator', 'shopify-orders', '1.0')).spec as TranslatorSpec;
    assert.deepEqual(spec.events, ['orders_create']);
    assert.deepEqual(spec.fields[0], {
      target: 'event_name',
      source: 'header:X-Shopify-Topic',
      transforms: [{ lookup: { 'orders/create': 'orders_create' } }],
    });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('at 390 px the headers box fits, and "none" keeps the body alone', async () => {
    // A short order: the full one's long column names widen step 3's selects at this width.
    const order = JSON.stringify({
      id: 820982911946154500,
      email: 'jon@example.com',
      total_price: '254.98',
      currency: 'USD',
    });
    const { page, errors } = await creatorWithSample(
      ui.browser(),
      `${ui.studio().url}/#token=${TOKEN}`,
      order,
      390,
    );
    await page.getByLabel(/^Its headers \(optional\)/).fill('X-Shopify-Topic: orders/create\nnot a header');
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText('line 2: "not a header" is not a header (Name: value)').waitFor();
    await page.screenshot({ path: join(ui.shots, 'creator-headers-phone.png'), fullPage: true });
    await assertNoSidewaysScroll(page);
    await page.getByLabel('The event type is told by the header').selectOption('');
    await page.locator('#multi-type').waitFor({ state: 'hidden' });
    // Read again: the person's "none" stands.
    await page.getByRole('button', { name: 'Read the sample' }).click();
    assert.equal(await page.getByLabel('The event type is told by the header').inputValue(), '');
    assert.equal(await page.locator('#multi-type').isVisible(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
