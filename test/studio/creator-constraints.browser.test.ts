/**
 * The creator shows what the saved definition will check (#94), in Debian's Chromium against a
 * studio on the Cloud Storage emulator: each field's "Saved as" says the type, whether it is
 * required, the values, length and range it takes, read from the definition the save writes. What
 * four rows cannot prove (two plans seen, no longest note, no range of amounts) is open, and says
 * so; tightened by the person, it is in the YAML that is saved, and a sample row that breaks it is
 * marked. Each cell is checked against the saved YAML's own field.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { parseAllDocuments } from 'yaml';
import { creatorWithSample, studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-constraints-admin-token-0123456789';
const ORDERS = [
  'order_no,plan,amount,note',
  'A-1,gold,19.90,first order',
  'A-2,gold,5.00,gift',
  'A-3,silver,7.50,repeat',
  'A-4,silver,12.00,ok',
].join('\n');

interface Field {
  name: string;
  type: string;
  enum?: string[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** The definition's fields in the YAML "Show what will be saved" shows. */
async function savedFields(page: Page): Promise<Field[]> {
  await page.getByRole('button', { name: 'Show what will be saved' }).click();
  await page.getByText(/^EventDefinition\/plan_order: would be created/).waitFor();
  const yaml = (await page.locator('#yaml').textContent()) ?? '';
  const def = parseAllDocuments(yaml)
    .map((d) => d.toJS() as { kind: string; spec: { fields: Field[] } })
    .find((d) => d.kind === 'EventDefinition');
  assert.ok(def, yaml);
  return def.spec.fields;
}

const savedAs = (page: Page, column: string) =>
  page.locator(`#fields tr[data-column="${column}"] .saved-as`).textContent();

describe('studio creator: what the saved definition checks', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('creator-constraints', {
    adminToken: TOKEN,
    gatewayUrl: 'http://127.0.0.1:8080',
  });

  it('shows each field’s checks as saved; what the sample cannot prove stays open until tightened', async () => {
    const { page, errors } = await creatorWithSample(
      ui.browser(),
      `${ui.studio().url}/#token=${TOKEN}`,
      ORDERS,
    );
    await page.getByLabel('Event name').fill('plan_order');
    await page.getByText('All 4 sample rows fit the definition.').waitFor();

    // Open: two plans seen are no list, no longest note, no range of amounts.
    assert.equal(
      await savedAs(page, 'plan'),
      'string · optional · any value (the sample shows 2: not proof of a list) · any length',
    );
    assert.equal(await savedAs(page, 'note'), 'string · optional · any value · any length');
    assert.equal(await savedAs(page, 'amount'), 'number · optional · any value · any range');
    let fields = await savedFields(page);
    for (const f of fields)
      assert.deepEqual(
        [f.enum, f.maxLength, f.minimum, f.maximum],
        [undefined, undefined, undefined, undefined],
        f.name,
      );

    // Tightened by the person: shown as saved, and in the YAML.
    await page.getByLabel('plan: allow only gold, silver').check();
    await page.getByLabel('amount: smallest value allowed').fill('0');
    await page.getByLabel('amount: largest value allowed').fill('1000');
    await page.getByText('All 4 sample rows fit the definition.').waitFor();
    assert.equal(await savedAs(page, 'plan'), 'string · optional · one of: gold, silver · any length');
    assert.equal(await savedAs(page, 'amount'), 'number · optional · any value · from 0 to 1000');
    fields = await savedFields(page);
    const by = (name: string) => fields.find((f) => f.name === name);
    assert.deepEqual(by('plan')?.enum, ['gold', 'silver']);
    // The amount is kept under the catalogue's name for a value.
    const amount = await page.getByLabel('Field name for amount').inputValue();
    assert.deepEqual([by(amount)?.minimum, by(amount)?.maximum], [0, 1000]);

    // A bound a sample row breaks: the row is marked, as the endpoint would refuse it.
    await page.getByLabel('note: at most how many characters').fill('6');
    assert.equal(await savedAs(page, 'note'), 'string · optional · any value · at most 6 characters');
    await page.getByText('1 of 4 sample rows would be refused: see the marked row.').waitFor();
    await page.locator('#fields-section').screenshot({ path: join(ui.shots, 'creator-constraints.png') });
    // Undone: open again, and gone from the YAML.
    await page.getByLabel('note: at most how many characters').fill('');
    await page.getByLabel('plan: allow only gold, silver').uncheck();
    await page.getByText('All 4 sample rows fit the definition.').waitFor();
    fields = await savedFields(page);
    assert.equal(fields.find((f) => f.name === 'plan')?.enum, undefined);
    assert.equal(fields.find((f) => f.name === 'note')?.maxLength, undefined);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
