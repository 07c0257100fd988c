/**
 * The rules page's form in Debian's Chromium: it is filled from the page's starting rule, writes
 * the Rule document the YAML beside it holds (chat, conditions, once per), the admin API's apply
 * takes it, and a saved rule opened again fills the form back; a rule the form cannot show says
 * why. The page passes the usability checks at 1280 and 390 px. Screenshots go to $SCREENSHOTS.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from 'yaml';
import { assertPageUsable } from '../support/page-checks.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'rules-form-admin-token-0123456789';
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe('studio rules page: the form beside the YAML', function () {
  this.timeout(90_000);
  const ui = studioInBrowser('rules-form', {
    adminToken: TOKEN,
    connections: [{ id: 'sales-chat', type: 'chat', url: 'https://chat.example/hook' }],
  } as Parameters<typeof studioInBrowser>[1]);

  it('writes the YAML the rules resource takes, and reads a saved rule back', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/rules#token=${TOKEN}`);
    // The starting rule fills the form.
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'high-value-purchase');
    assert.equal(await page.getByLabel('Condition 1: field').inputValue(), 'value');

    await page.getByLabel('Name', { exact: true }).fill('big-order-chat');
    await page.getByLabel('Description').fill('Big orders to the sales chat');
    await page.getByLabel('When these events are stored').fill('purchase');
    await page.getByLabel('and', { exact: true }).selectOption('any');
    await page.getByRole('button', { name: 'Add a condition' }).click();
    await page.getByLabel('Condition 2: field').fill('currency');
    await page.getByLabel('Condition 2: operator').selectOption('in');
    await page.getByLabel('Condition 2: value').fill('EUR, CHF');
    await page.getByLabel('Once per').fill('user_id');
    await page.getByLabel('per', { exact: true }).fill('12h');
    await page.getByLabel('Then').selectOption('chat');
    await page.getByLabel('through connection').fill('sales-chat');
    await page.getByLabel('Message').fill('Big order {{transaction_id}}: {{value}}');
    await page.getByRole('button', { name: 'Write the YAML' }).click();
    const yaml = await page.getByLabel('The rule, as YAML').inputValue();
    assert.deepEqual(parse(yaml), {
      kind: 'Rule',
      name: 'big-order-chat',
      description: 'Big orders to the sales chat',
      spec: {
        trigger: {
          event: {
            names: ['purchase'],
            any: [
              { field: 'value', op: 'gt', value: 500 },
              { field: 'currency', op: 'in', value: ['EUR', 'CHF'] },
            ],
          },
        },
        once_per: { key: 'user_id', period: '12h' },
        actions: [{ chat: { connection: 'sales-chat', text: 'Big order {{transaction_id}}: {{value}}' } }],
      },
    });
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByText('Rule/big-order-chat: would be created 1.0').waitFor();
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByText('Opened big-order-chat 1.0.').waitFor();

    // A new rule, then the saved one again: the form follows the YAML.
    await page.getByLabel('Open').selectOption('');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'high-value-purchase');
    await page.getByLabel('Open').selectOption('big-order-chat');
    // The status already says so from the save: wait for the form instead.
    await page.waitForFunction(
      () => (document.getElementById('f-name') as HTMLInputElement).value !== 'high-value-purchase',
    );
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'big-order-chat');
    assert.equal(await page.getByLabel('Condition 2: value').inputValue(), 'EUR, CHF');
    assert.equal(await page.getByLabel('per', { exact: true }).inputValue(), '12h');

    // What the form cannot show stays YAML, and it says why.
    await page
      .getByLabel('The rule, as YAML')
      .fill(
        'kind: Rule\nname: x\nspec:\n  trigger: { schedule: { every: 1h }, sql: SELECT 1 }\n  actions: [{ publish: { event_name: y } }]\n',
      );
    await page.getByRole('button', { name: 'Fill the form from the YAML' }).click();
    await page.getByText(/The form cannot show this rule: its trigger is not on events/).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('is usable at desktop and phone sizes', async () => {
    for (const size of SIZES) {
      const page = await ui.browser().newPage({ viewport: { width: size.width, height: size.height } });
      await page.goto(`${ui.studio().url}/rules#token=${TOKEN}`);
      await page.getByLabel('Condition 1: field').waitFor();
      await page.screenshot({ path: join(ui.shots, `rules-form-${size.name}.png`), fullPage: true });
      await assertPageUsable(page);
      await page.close();
    }
  });
});
