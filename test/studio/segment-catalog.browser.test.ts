/**
 * The studio's catalogue of Segment Action Destinations (studio/web/catalog.ts) in Debian's
 * Chromium: searching "klaviyo" finds it, its form (generated from the manifest: the API key as a
 * secret's name, trackEvent's fields with their presets) writes the `segment_action` settings
 * YAML, and the preview runs the action through the runtime with the studio's recording stand-in:
 * the POST to Klaviyo's events API with its key as `secret:api_key`, nothing sent. Amplitude opens
 * on Segment's presets: the YAML names no actions, and the preview of a purchase runs its
 * `logPurchase` preset with the revenue (issue #95; screenshot segment-catalog-presets.png).
 * Facebook Conversions' Purchase V2 starts with its suggested mappings (its action source, its sync
 * mode), saved as its mapping and delivered in the preview. The
 * page, with the preview shown, passes the usability checks at 1280 and 390 px; screenshots go to
 * $SCREENSHOTS as segment-catalog-desktop.png and segment-catalog-phone.png.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { parse } from 'yaml';
import { assertPageUsable } from '../support/page-checks.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'segment-catalog-admin-token-0123456789';
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Opens the catalogue, finds Klaviyo, and fills trackEvent's form as a person would. */
async function fillKlaviyo(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/catalog#token=${TOKEN}`);
  await page.getByText(/^\d+ of \d+ destinations\.$/).waitFor();
  await page.getByLabel('Search').fill('klaviyo');
  await page.getByText(/^1 of \d+ destinations\.$/).waitFor();
  await page.getByRole('button', { name: 'Open Klaviyo (Actions)' }).click();
  await page.getByRole('heading', { name: 'Klaviyo (Actions)' }).waitFor();
  await page.getByLabel('Action', { exact: true }).selectOption('trackEvent');
  await page.getByLabel('API Key: secret name (required)').fill('klaviyo-api-key');
  await page.getByLabel('Events it takes').fill('purchase');
  await page.getByLabel('Value', { exact: true }).fill('{"@path": "$.properties.total"}');
}

describe('studio catalogue: Segment Action Destinations', function () {
  this.timeout(120_000);
  const ui = studioInBrowser('segment-catalog', { adminToken: TOKEN });

  it('searches, opens Klaviyo, writes its settings YAML and previews the request', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await fillKlaviyo(page, ui.studio().url);
    // Required fields say so; presets are filled in.
    assert.equal(await page.getByLabel('Metric Name (required)').inputValue(), '{"@path":"$.event"}');
    assert.equal(await page.getByLabel('Batch Data to Klaviyo').inputValue(), 'true');

    await page.getByRole('button', { name: 'Write the YAML' }).click();
    const yaml = parse(await page.getByLabel('The destination, as settings YAML').inputValue());
    assert.deepEqual(yaml, {
      destinations: [
        {
          id: 'klaviyo',
          type: 'segment_action',
          destination: 'klaviyo',
          secrets: { api_key: 'klaviyo-api-key' },
          actions: [
            {
              action: 'trackEvent',
              when: ['purchase'],
              mapping: {
                // Suggested from the profile's properties' own presets (actions-core does not compose them).
                profile: { external_id: { '@path': '$.userId' }, anonymous_id: { '@path': '$.anonymousId' } },
                value: { '@path': '$.properties.total' },
              },
            },
          ],
        },
      ],
    });

    await page.getByRole('button', { name: 'Preview the request' }).click();
    await page.getByText('trackEvent: delivered').waitFor();
    await page.getByRole('heading', { name: 'POST https://a.klaviyo.com/api/events/' }).waitFor();
    const request = await page.locator('#p-out pre').first().textContent();
    assert.match(request ?? '', /^authorization: Klaviyo-API-Key secret:api_key$/m);
    const body = JSON.parse((request ?? '').split('\n\n').slice(1).join('\n\n')) as {
      data: { attributes: Record<string, unknown> };
    };
    const attributes = body.data.attributes;
    assert.deepEqual(attributes['metric'], {
      data: { type: 'metric', attributes: { name: 'Order Completed' } },
    });
    assert.equal(attributes['value'], 42.5);
    assert.equal(attributes['unique_id'], 'evt_preview_0001');
    assert.deepEqual(attributes['profile'], {
      data: { type: 'profile', attributes: { external_id: 'user-123', anonymous_id: 'anon-456' } },
    });

    // A required field without a preset, emptied, is refused by the settings check, naming it.
    await page.getByLabel('Profile (required)').fill('');
    await page.getByRole('button', { name: 'Preview the request' }).click();
    await page.getByText('destination.actions[0].mapping.profile: required by klaviyo trackEvent').waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('pre-fills the suggested mappings of Facebook Conversions’ Purchase V2, and saves them (#95)', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/catalog#token=${TOKEN}`);
    await page.getByText(/^\d+ of \d+ destinations\.$/).waitFor();
    await page.getByLabel('Search').fill('facebook conversions');
    await page.getByRole('button', { name: 'Open Facebook Conversions API (Actions)' }).click();
    await page.getByRole('heading', { name: 'Facebook Conversions API (Actions)' }).waitFor();
    await page.getByLabel('Action', { exact: true }).selectOption('purchase2');
    await page.getByLabel('Pixel ID (required)').fill('123456789');
    // No preset for these two: the suggester's entries, said to be suggestions, editable.
    const source = page.getByLabel('Action Source (required)');
    assert.equal(await source.inputValue(), 'website');
    assert.equal(await page.getByLabel('How to sync records (required)').inputValue(), 'add');
    await page
      .getByText(/Suggested: a website event/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Write the YAML' }).click();
    const yaml = parse(await page.getByLabel('The destination, as settings YAML').inputValue()) as {
      destinations: { actions: { action: string; mapping: Record<string, unknown> }[] }[];
    };
    assert.deepEqual(yaml.destinations[0]?.actions, [
      { action: 'purchase2', mapping: { action_source: 'website', __segment_internal_sync_mode: 'add' } },
    ]);
    await page.getByRole('button', { name: 'Preview the request' }).click();
    await page.getByText('purchase2: delivered').waitFor();
    // Changed by the user, their choice is what is saved.
    await source.selectOption('physical_store');
    await page.getByRole('button', { name: 'Write the YAML' }).click();
    assert.match(
      await page.getByLabel('The destination, as settings YAML').inputValue(),
      /action_source: physical_store/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('says on its entry why a destination does not deliver (the catalogue run) or cannot be configured', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.studio().url}/catalog#token=${TOKEN}`);
    await page.getByText(/^\d+ of \d+ destinations\.$/).waitFor();
    await page.getByLabel('Search').fill('ambee');
    await page.getByRole('button', { name: 'Open Ambee (Actions)' }).click();
    await page.getByRole('heading', { name: 'Ambee (Actions)' }).waitFor();
    const note = page.locator('#d-undelivered');
    assert.match((await note.textContent()) ?? '', /delivered none of a site's ordinary events: it refuses/);
    assert.ok(await note.isVisible());
    await page.screenshot({ path: join(ui.shots, 'segment-catalog-undelivered.png'), fullPage: true });
    // One that delivers has no such note.
    await page.getByLabel('Search').fill('klaviyo');
    await page.getByRole('button', { name: 'Open Klaviyo (Actions)' }).click();
    await page.getByRole('heading', { name: 'Klaviyo (Actions)' }).waitFor();
    assert.equal(await page.locator('#d-undelivered').count(), 0);
    assert.equal(await page.locator('#d-unsupported').count(), 0);
    assert.ok(await page.getByRole('group', { name: 'Its settings, as a form' }).isVisible());
    assert.ok(await page.getByRole('heading', { name: 'Preview' }).isVisible());
    // One it cannot configure says why: Kafka's own client, not OAuth (it has none).
    await page.getByLabel('Search').fill('kafka');
    await page.getByRole('button', { name: /^Open Kafka/ }).click();
    await page.getByRole('heading', { name: /^Kafka/ }).waitFor();
    const why = (await page.locator('#d-unsupported').textContent()) ?? '';
    assert.match(why, /client of its own \(kafkajs\)/);
    assert.doesNotMatch(why, /OAuth/);
    // No form to fill for it, nor a preview: what they would make, the settings check refuses.
    assert.equal(await page.getByRole('group', { name: 'Its settings, as a form' }).isVisible(), false);
    assert.equal(await page.getByRole('button', { name: 'Write the YAML' }).isVisible(), false);
    assert.equal(await page.getByRole('heading', { name: 'Preview' }).isVisible(), false);
    await page.screenshot({ path: join(ui.shots, 'segment-catalog-unsupported.png'), fullPage: true });
    await page.close();
  });

  it("adds Amplitude with Segment's presets: no actions written, the purchase sent with its revenue", async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/catalog#token=${TOKEN}`);
    await page.getByText(/^\d+ of \d+ destinations\.$/).waitFor();
    await page.getByLabel('Search').fill('amplitude');
    await page.getByRole('button', { name: 'Open Actions Amplitude' }).click();
    await page.getByRole('heading', { name: 'Actions Amplitude' }).waitFor();
    // Presets first, as Segment's app enables them when the destination is added: nothing to map.
    const action = page.getByLabel('Action', { exact: true });
    assert.equal(await action.inputValue(), '');
    assert.equal(await page.getByLabel('Events it takes').isVisible(), false);
    await page.getByText(/Order Completed Calls: logPurchase for/).waitFor();
    await page.getByLabel('API Key: secret name (required)').fill('amplitude-api-key');
    await page.getByLabel('Secret Key: secret name (required)').fill('amplitude-secret-key');
    await page.getByRole('button', { name: 'Write the YAML' }).click();
    const yaml = parse(await page.getByLabel('The destination, as settings YAML').inputValue());
    assert.deepEqual(yaml, {
      destinations: [
        {
          id: 'amplitude',
          type: 'segment_action',
          destination: 'amplitude',
          config: { endpoint: 'north_america' },
          secrets: { apiKey: 'amplitude-api-key', secretKey: 'amplitude-secret-key' },
        },
      ],
    });
    await page.getByRole('button', { name: 'Preview the request' }).click();
    await page.getByText('logPurchase: delivered').waitFor();
    const request = await page.locator('#p-out pre').first().textContent();
    const body = JSON.parse((request ?? '').split('\n\n').slice(1).join('\n\n')) as {
      events: Record<string, unknown>[];
    };
    assert.equal(body.events[0]?.['revenue'], 42.5, 'the order counts as revenue');
    assert.equal(body.events[0]?.['event_type'], 'Order Completed');
    await page.screenshot({ path: join(ui.shots, 'segment-catalog-presets.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('is usable at desktop and phone sizes, with the form and a preview shown', async () => {
    for (const size of SIZES) {
      const page = await ui.browser().newPage({ viewport: { width: size.width, height: size.height } });
      await fillKlaviyo(page, ui.studio().url);
      await page.getByRole('button', { name: 'Preview the request' }).click();
      await page.getByText('trackEvent: delivered').waitFor();
      await page.screenshot({ path: join(ui.shots, `segment-catalog-${size.name}.png`), fullPage: true });
      await assertPageUsable(page);
      await page.close();
    }
  });
});
