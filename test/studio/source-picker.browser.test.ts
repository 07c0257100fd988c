/**
 * The creator's "I have …" picker (issue #37) in Debian's Chromium: the page offers every source
 * of the catalogue; choosing Stripe with `ads` ticked applies its translator (the registry holds
 * it, Stripe's signature scheme and `consent.ads: granted` included, nothing else granted) and
 * says what to paste in Stripe's dashboard, the secret's name and where GA4's client id comes from.
 */
import assert from 'node:assert/strict';
import { RegistryClient } from '../../adapters/registry.ts';
import { readCatalogue } from '../../adapters/source-catalogue.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'source-picker-admin-token-0123456789';

describe('studio creator: the source picker in a browser', function () {
  this.timeout(90_000);
  const ui = studioInBrowser('source-picker', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  it('offers the catalogue, and applies Stripe with the consent ticked, saying what to paste', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    const tool = page.getByLabel('The tool');
    await tool.locator('option[value="stripe"]').waitFor({ state: 'attached' });
    const offered = await tool
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual(
      offered.filter((v) => v !== ''),
      readCatalogue().map((s) => s.name),
    );
    await tool.selectOption('stripe');
    await page.getByLabel('grant ads', { exact: true }).check();
    await page.getByRole('button', { name: 'Add it' }).click();
    await page.getByText('Translator stripe is live. In Stripe:').waitFor();
    await page.getByText(/Endpoint URL: http:\/\/127\.0\.0\.1:8080\/v1\/translators\/stripe/).waitFor();
    await page.getByText(/Secret Manager as eventbus-translator-stripe/).waitFor();
    await page.getByText(/GA4 client id: data\.object\.metadata\.ga_client_id/).waitFor();
    assert.deepEqual(errors, []);

    const tr = await new RegistryClient(ui.bucket()).readVersion('Translator', 'stripe', '1.0');
    const spec = tr.spec as TranslatorSpec;
    assert.equal(spec.auth?.signature?.scheme, 'stripe');
    assert.deepEqual(
      spec.fields.filter((f) => f.target.startsWith('consent.')),
      [{ target: 'consent.ads', value: 'granted' }],
    );
  });
});
