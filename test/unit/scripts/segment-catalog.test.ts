/**
 * The rules of the catalogue manifest's generator (scripts/segment-catalog.ts): auth kinds,
 * categories, the settings a testAuthentication requires, entries. The generation itself, in a
 * child process, and the committed catalog.json's freshness are test/cli/segment-catalog.test.ts.
 */
import assert from 'node:assert/strict';
import type { CatalogSetting } from '../../../core/platforms/segment-action/catalog.ts';
import { authKind, entryOf, settingRulesOf } from '../../../scripts/segment-catalog.ts';
import { categoryOf } from '../../../scripts/segment-catalog-category.ts';

const setting = (key: string, secret = false): CatalogSetting => ({
  key,
  label: key,
  type: 'string',
  required: true,
  ...(secret ? { secret: true } : {}),
});

describe('scripts: segment-catalog', () => {
  it('derives the auth kind from the scheme and, for custom schemes, the fields', () => {
    const cases: [unknown, CatalogSetting[], string][] = [
      ['basic', [setting('username'), setting('password', true)], 'basic'],
      ['oauth2', [], 'oauth2'],
      ['oauth-managed', [], 'oauth-managed'],
      [undefined, [], 'none'],
      ['custom', [setting('region'), setting('apiKey', true)], 'api_key'],
      ['custom', [setting('region'), setting('endpoint')], 'custom'],
    ];
    for (const [scheme, fields, kind] of cases) assert.equal(authKind(scheme, fields), kind, String(scheme));
  });

  it('derives a category from the name first, then audiences, then the description', () => {
    const c = (slug: string, description = '', audiences = false) =>
      categoryOf({ slug, name: slug, description, audiences });
    assert.equal(c('klaviyo', '', true), 'Messaging');
    assert.equal(c('acme-sync', '', true), 'Audiences');
    assert.equal(c('mixpanel'), 'Analytics');
    assert.equal(c('pipedrive'), 'CRM');
    assert.equal(c('nowhere', 'Send conversions to the ad network.'), 'Advertising');
    assert.equal(c('nowhere', 'Does things.'), 'Other');
  });

  it('reads the settings a testAuthentication refuses to go without from its code, never running it', () => {
    const fields = [
      { key: 'measurementId', label: 'M', type: 'string', required: false },
      { key: 'firebaseAppId', label: 'F', type: 'string', required: false },
      { key: 'apiSecret', label: 'S', type: 'string', required: true },
    ];
    let ran = false;
    // The shape of GA4's testAuthentication, operands in its own order.
    const test = (
      _request: unknown,
      { settings }: { settings: { firebaseAppId?: string; measurementId?: string } },
    ) => {
      ran = true;
      if (!settings.firebaseAppId && !settings.measurementId) {
        throw new Error('One of them is required');
      }
      return {};
    };
    assert.deepEqual(settingRulesOf(test, fields), [
      { anyOf: ['measurementId', 'firebaseAppId'], message: 'One of them is required' },
    ]);
    // A field flagged required already says it; a condition on anything else is not read.
    const flagged = fields.map((f) => ({ ...f, required: true }));
    assert.deepEqual(settingRulesOf(test, flagged), []);
    assert.equal(ran, false);
  });

  it('turns a definition into an entry: presets, choices, object properties, conditional requirements', () => {
    const e = entryOf('acme', {
      name: 'Acme',
      description: `${'long words '.repeat(40)}end`,
      authentication: {
        scheme: 'custom',
        fields: {
          apiKey: { label: 'API key', type: 'string', required: true },
          region: { label: 'Region', type: 'string' },
        },
      },
      presets: [
        {
          name: 'Track',
          partnerAction: 'track',
          subscribe: 'type = "track"',
          type: 'automatic',
          mapping: { event: { '@path': '$.event' }, region: 'eu' },
        },
        { name: 'Page', partnerAction: 'track', subscribe: 'type = "page"', type: 'automatic', mapping: {} },
        {
          name: 'Entered',
          partnerAction: 'track',
          eventSlug: 'warehouse_entered_track',
          type: 'specificEvent',
        },
        { name: 'Browser', partnerAction: 'plugin', subscribe: 'type = "track"', type: 'automatic' },
      ],
      actions: {
        track: {
          title: 'Track',
          defaultSubscription: 'type = "track"',
          fields: {
            event: { label: 'Event', type: 'string', required: true, default: { '@path': '$.event' } },
            region: { label: 'Region', type: 'string', choices: ['eu', { value: 'us', label: 'US' }] },
            user: {
              label: 'User',
              type: 'object',
              properties: { email: { label: 'Email', type: 'string' } },
            },
            phone: { label: 'Phone', type: 'string', required: { conditions: [] } },
          },
        },
      },
    });
    assert.equal(e.auth, 'api_key');
    assert.deepEqual(
      e.authFields.map((f) => [f.key, f.secret ?? false]),
      [
        ['apiKey', true],
        ['region', false],
      ],
    );
    assert.ok((e.description ?? '').endsWith('…') && (e.description ?? '').length <= 200);
    // Mappings kept as they differ from the field defaults; a preset of an action it lacks (a browser plugin) dropped.
    assert.deepEqual(e.presets, [
      { name: 'Track', action: 'track', subscribe: 'type = "track"', mapping: { region: 'eu' } },
      { name: 'Page', action: 'track', subscribe: 'type = "page"', omit: ['event'] },
      { name: 'Entered', action: 'track', eventSlug: 'warehouse_entered_track' },
    ]);
    const [event, region, user, phone] = e.actions[0]?.fields ?? [];
    assert.deepEqual(event?.default, { '@path': '$.event' });
    assert.deepEqual(region?.choices, [
      { value: 'eu', label: 'eu' },
      { value: 'us', label: 'US' },
    ]);
    assert.deepEqual(user?.properties, [{ key: 'email', label: 'Email', type: 'string', required: false }]);
    assert.equal(phone?.required, false);
    assert.equal(phone?.conditional, true);
  });
});
