/**
 * One endpoint, several event types, on the creator's page (#94), in Debian's Chromium against a
 * studio on the Cloud Storage emulator: a vendor's sample of a payment, a renewal and a refund
 * told apart by `type` is offered as one event per type; each type is mapped on its own (its
 * name, its columns, a field renamed in one type kept when the person looks at another), every
 * row checked against its own type's definition, and what is saved is each type's definition and
 * ONE translator naming each row's event by `type`. Unticked, the same rows are one event again.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { assertNoSidewaysScroll } from '../support/page-checks.ts';
import { creatorWithSample, studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-types-admin-token-0123456789';
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const VENDOR = JSON.stringify([
  {
    id: 'evt_1a',
    type: 'payment.succeeded',
    created: hoursAgo(3),
    data: { payment_id: 'pay_1', amount: 49.9, currency: 'EUR' },
  },
  {
    id: 'evt_2b',
    type: 'subscription.renewed',
    created: hoursAgo(2),
    data: { subscription_id: 'sub_1', plan: 'gold', period_end: hoursAgo(-720) },
  },
  {
    id: 'evt_3c',
    type: 'payment.refunded',
    created: hoursAgo(1),
    data: { payment_id: 'pay_1', refunded_amount: 10, reason: 'requested_by_customer' },
  },
]);

/** The columns the field table shows, by name. */
const columnsShown = (page: Page) =>
  page.locator('#fields tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-column')));

describe('studio creator: one endpoint, several event types', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('creator-types', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  const open = (width: number) =>
    creatorWithSample(ui.browser(), `${ui.studio().url}/#token=${TOKEN}`, VENDOR, width);

  it('maps each type on its own and saves them as one translator with a definition per type', async () => {
    const { page, errors } = await open(1280);
    const offer = page.getByLabel(/^One event per type: the rows are told apart by type \(3 types\)/);
    assert.equal(await offer.isChecked(), true);
    const pick = page.getByLabel('Mapping for type');
    assert.deepEqual(await pick.locator('option').allTextContents(), [
      'payment.succeeded (1 row)',
      'subscription.renewed (1 row)',
      'payment.refunded (1 row)',
    ]);
    // The payment's own columns, none of the renewal's; its name guessed from its type.
    assert.ok((await columnsShown(page)).includes('data.amount'));
    assert.ok(!(await columnsShown(page)).includes('data.plan'));
    const name = page.getByLabel('Event name');
    assert.equal(await name.inputValue(), 'payment_succeeded');
    await page.getByText('All 3 sample rows fit the definitions of their 3 types.').waitFor();

    // Each type's own step 3: the payment goes to Meta as a Purchase, the renewal nowhere.
    const meta = page.locator('#platform-meta_capi');
    await meta.selectOption('Purchase');
    await page.getByLabel('Description').fill('A payment went through.');

    // The renewal: its own columns and name; a field renamed here is kept while another type is shown.
    await pick.selectOption({ label: 'subscription.renewed (1 row)' });
    assert.equal(await meta.inputValue(), '');
    assert.equal(await page.getByLabel('Description').inputValue(), '');
    assert.ok((await columnsShown(page)).includes('data.plan'));
    assert.ok(!(await columnsShown(page)).includes('data.amount'));
    assert.equal(await name.inputValue(), 'subscription_renewed');
    await page.getByLabel('Field name for data.plan').fill('plan_name');
    await pick.selectOption({ label: 'payment.succeeded (1 row)' });
    assert.equal(await name.inputValue(), 'payment_succeeded');
    assert.equal(await meta.inputValue(), 'Purchase');
    assert.equal(await page.getByLabel('Description').inputValue(), 'A payment went through.');
    await pick.selectOption({ label: 'subscription.renewed (1 row)' });
    assert.equal(await page.getByLabel('Field name for data.plan').inputValue(), 'plan_name');

    // Two types named alike would be one event: held back, naming both.
    await name.fill('payment_succeeded');
    await page
      .getByText(/Types payment\.succeeded and subscription\.renewed are both named payment_succeeded/)
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await name.fill('subscription_renewed');
    await page.getByText('All 3 sample rows fit the definitions of their 3 types.').waitFor();

    await page.getByLabel('Endpoint (translator) name').fill('vendor-events');
    await page.getByLabel('The sender sends').selectOption('url_token');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    for (const line of [
      'EventDefinition/payment_succeeded: would be created 1.0',
      'EventDefinition/subscription_renewed: would be created 1.0',
      'EventDefinition/payment_refunded: would be created 1.0',
      'Translator/vendor-events: would be created 1.0',
    ])
      await page.getByText(line).waitFor();
    const yaml = (await page.locator('#yaml').textContent()) ?? '';
    assert.match(yaml, /equals: subscription\.renewed/);
    await page.locator('#fields-section').screenshot({ path: join(ui.shots, 'creator-types.png') });
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page
      .locator('#endpoint')
      .getByText(/vendor-events/)
      .first()
      .waitFor();

    const registry = new RegistryClient(ui.bucket());
    const spec = (await registry.readVersion('Translator', 'vendor-events', '1.0')).spec as TranslatorSpec;
    assert.deepEqual(spec.events, ['payment_succeeded', 'subscription_renewed', 'payment_refunded']);
    assert.deepEqual(spec.fields[0], {
      target: 'event_name',
      source: 'type',
      transforms: [
        {
          lookup: {
            'payment.succeeded': 'payment_succeeded',
            'subscription.renewed': 'subscription_renewed',
            'payment.refunded': 'payment_refunded',
          },
        },
      ],
    });
    const renewal = spec.cases?.find((c) => 'equals' in c.when && c.when.equals === 'subscription.renewed');
    assert.ok(
      renewal?.fields.some((f) => f.target === 'plan_name' && 'source' in f && f.source === 'data.plan'),
    );
    const def = await registry.readVersion('EventDefinition', 'subscription_renewed', '1.0');
    const fields = (def.spec as { fields: { name: string }[] }).fields.map((f) => f.name);
    assert.ok(fields.includes('plan_name'), fields.join());
    assert.ok(!fields.includes('amount'), fields.join());
    assert.equal((def.spec as { mappings?: unknown }).mappings, undefined, 'the renewal goes to no platform');
    const payment = await registry.readVersion('EventDefinition', 'payment_succeeded', '1.0');
    assert.equal(payment.description, 'A payment went through.');
    assert.equal(
      (payment.spec as { mappings?: { meta_capi?: { event: string } } }).mappings?.meta_capi?.event,
      'Purchase',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('at 390 px it fits the screen, and unticked the rows are one event again', async () => {
    const { page, errors } = await open(390);
    await page.getByText('All 3 sample rows fit the definitions of their 3 types.').waitFor();
    await assertNoSidewaysScroll(page);
    await page.locator('#multi-type').screenshot({ path: join(ui.shots, 'creator-types-phone.png') });
    await page.getByLabel(/^One event per type/).uncheck();
    assert.equal(await page.getByLabel('Mapping for type').isVisible(), false);
    const shown = await columnsShown(page);
    assert.ok(shown.includes('data.amount') && shown.includes('data.plan'), shown.join());
    assert.equal(await page.getByLabel('Endpoint (translator) name').isVisible(), false);
    // Still unticked after reading the same sample again: the person's choice stands.
    await page.getByRole('button', { name: 'Read the sample' }).click();
    assert.equal(await page.getByLabel(/^One event per type/).isChecked(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
