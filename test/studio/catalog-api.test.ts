/**
 * The catalogue's calls on the studio's admin API (studio/catalog-api.ts) over HTTP: the list
 * (short, with the text search looks in), one entry whole, the preview of the requests a
 * `segment_action` destination makes for an event through the runtime and a recording stand-in
 * (nothing leaves: the credential is `secret:<role>`), and refusals naming their field. Also the
 * page's form as data (studio/web/catalog-form.ts): presets, values by type, the destination made.
 */
import assert from 'node:assert/strict';
import type { RegistryClient } from '../../adapters/registry.ts';
import { catalogEntry } from '../../core/platforms/segment-action/catalog.ts';
import { segmentActionProblems } from '../../core/platforms/segment-action/check.ts';
import { SYNC_MODE_KEY } from '../../core/platforms/segment-action/presets.ts';
import { suggestAction } from '../../core/platforms/segment-action/suggest.ts';
import type { Destination } from '../../schemas/settings.ts';
import { startStudio } from '../../studio/server.ts';
import {
  destinationOf,
  formFields,
  idOf,
  PRESETS,
  presetText,
  readField,
  secretName,
  startText,
  suggestedAction,
  whenOf,
} from '../../studio/web/catalog-form.ts';
import { adminCall } from '../support/admin-call.ts';

const TOKEN = 'catalog-api-admin-token-0123456789';

type Json = Record<string, unknown>;

/** A Klaviyo destination as the page's form writes it (the profile mapped, as the form suggests). */
const KLAVIYO = {
  type: 'segment_action',
  destination: 'klaviyo',
  secrets: { api_key: 'klaviyo-api-key' },
  actions: [
    {
      action: 'trackEvent',
      when: ['purchase'],
      mapping: { profile: { external_id: { '@path': '$.userId' } } },
    },
  ],
};

describe('studio: the catalogue of Segment Action Destinations', function () {
  this.timeout(30_000);
  let studio: Awaited<ReturnType<typeof startStudio>>;
  // The catalogue's calls read the manifest only: no registry call is made.
  before(async () => {
    studio = await startStudio({ registry: {} as unknown as RegistryClient, adminToken: TOKEN });
  });
  after(() => studio?.close());
  const call = (action: string, body: unknown) => adminCall<Json>(studio.url, TOKEN, action, body);

  it('lists every destination short, with its auth kind, whether it is supported and its actions', async () => {
    const r = await call('catalog', {});
    assert.equal(r.status, 200);
    const list = r.json['destinations'] as Json[];
    assert.ok(list.length >= 140);
    const klaviyo = list.find((d) => d['slug'] === 'klaviyo');
    assert.equal(klaviyo?.['auth'], 'api_key');
    assert.equal(klaviyo?.['supported'], true);
    assert.equal(klaviyo?.['delivers'], true);
    assert.equal(list.find((d) => d['slug'] === 'segment-profiles')?.['delivers'], false);
    assert.match(String(klaviyo?.['search']), /klaviyo.*track event/);
    assert.ok(!('authFields' in (klaviyo ?? {})), 'the list is short: fields come with one entry');
    // Every OAuth destination is configurable with an oauth2 connection (issue #78).
    assert.equal(list.find((d) => d['slug'] === 'salesforce')?.['supported'], true);
    assert.ok(Array.isArray(r.json['unloadable']));
  });

  it('gives one entry whole; an OAuth one names its token role or that it takes an oauth2 connection', async () => {
    const k = await call('catalog-entry', { slug: 'klaviyo' });
    assert.equal(k.status, 200);
    assert.equal((k.json['authFields'] as Json[])[0]?.['key'], 'api_key');
    assert.equal(k.json['tokenRole'], undefined);
    const h = await call('catalog-entry', { slug: 'hubspot' });
    assert.equal(h.json['tokenRole'], 'access_token');
    assert.equal(h.json['connection'], undefined);
    // Another OAuth destination: an oauth2 connection, no token role.
    const g = await call('catalog-entry', { slug: 'google-sheets' });
    assert.equal(g.json['connection'], true);
    assert.equal(g.json['tokenRole'], undefined);
    // Verified is not delivered: one the catalogue run made deliver nothing says why (#95).
    assert.equal(k.json['undelivered'], undefined);
    const ambee = await call('catalog-entry', { slug: 'ambee' });
    assert.equal((ambee.json['undelivered'] as Json | undefined)?.['why'], 'refused-before-sending');
    assert.match(String((ambee.json['undelivered'] as Json)['says']), /Segment's own libraries/);
    const bad = await call('catalog-entry', { slug: 'nope' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json), /"field":"slug"/);
  });

  it('previews the request through the runtime with the stand-in: the credential as secret:<role>', async () => {
    const r = await call('catalog-preview', {
      destination: KLAVIYO,
      event: {
        event_name: 'purchase',
        event_id: 'evt_1',
        user_id: 'u-1',
        event_data: { value: 10, currency: 'EUR' },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json['outcomes'], [
      { action: 'trackEvent', outcome: { status: 'delivered', httpStatus: 200 } },
    ]);
    const [request] = r.json['requests'] as { method: string; url: string; headers: Json; body: Json }[];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, 'https://a.klaviyo.com/api/events/');
    assert.equal(request?.headers['authorization'], 'Klaviyo-API-Key secret:api_key');
    assert.match(JSON.stringify(request?.body), /"name":"Order Completed"/);
  });

  it("writes Segment's presets as no actions, and Amplitude's purchase, with its revenue, either way (#95)", async () => {
    const amplitude = catalogEntry('amplitude');
    assert.ok(amplitude);
    const values = {
      id: 'amplitude',
      slug: 'amplitude',
      settings: { apiKey: 'amp-key', secretKey: 'amp-secret' },
    };
    const presets = destinationOf(
      { ...values, action: PRESETS, when: '', fields: {} },
      amplitude.authFields,
      [],
    );
    assert.deepEqual(presets.problems, []);
    assert.deepEqual(presets.destination, {
      id: 'amplitude',
      type: 'segment_action',
      destination: 'amplitude',
      secrets: { apiKey: 'amp-key', secretKey: 'amp-secret' },
    });
    // The one action suggested for the sample purchase is the preset's for Order Completed.
    const suggested = suggestedAction(amplitude.actions, amplitude.presets);
    assert.equal(suggested, 'logPurchase');
    const one = destinationOf(
      { ...values, action: suggested ?? '', when: '', fields: {} },
      amplitude.authFields,
      [],
    );
    const purchase = {
      event_name: 'purchase',
      event_id: 'evt_2',
      user_id: 'u-1',
      event_data: { value: 42.5, currency: 'EUR', transaction_id: 'T-1' },
    };
    for (const destination of [presets.destination, one.destination]) {
      const r = await call('catalog-preview', { destination, event: purchase });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const [request] = r.json['requests'] as { body: { events: Json[] } }[];
      // Amplitude counts revenue from the event's own `revenue` (logPurchase), not its properties.
      assert.equal(request?.body.events[0]?.['revenue'], 42.5, JSON.stringify(request?.body));
    }
    // Klaviyo runs no presets (its only ones are Segment's warehouse audiences): one action.
    const klaviyo = catalogEntry('klaviyo');
    assert.equal(suggestedAction(klaviyo?.actions ?? [], klaviyo?.presets), 'trackEvent');
  });

  it('refuses a destination the settings check refuses, naming the field', async () => {
    const r = await call('catalog-preview', {
      destination: { type: 'segment_action', destination: 'klaviyo', actions: [{ action: 'trackEvent' }] },
      event: { event_name: 'purchase', event_id: 'evt_1' },
    });
    assert.equal(r.status, 400);
    const fields = JSON.stringify(r.json);
    assert.match(fields, /destination\.secrets\.api_key/);
    assert.match(fields, /destination\.actions\[0\]\.mapping\.profile/);
    const typed = await call('catalog-preview', {
      destination: { type: 'meta_capi', destination: 'klaviyo' },
      event: { event_name: 'purchase', event_id: 'evt_1' },
    });
    assert.match(JSON.stringify(typed.json), /"field":"destination.type"/);
    const event = await call('catalog-preview', { destination: KLAVIYO, event: { event_name: 'purchase' } });
    assert.match(JSON.stringify(event.json), /"field":"event.event_id"/);
  });

  it('answers the catalogue calls to POST only', async () => {
    const res = await fetch(`${studio.url}/v1/admin/catalog`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

describe('studio: the catalogue form as data', () => {
  const track = catalogEntry('klaviyo')?.actions.find((a) => a.key === 'trackEvent');
  const settings = catalogEntry('klaviyo')?.authFields ?? [];

  it('starts fields from their presets, objects from their properties’ presets', () => {
    const field = (key: string) =>
      track?.fields.find((f) => f.key === key) ?? { key, label: key, type: 'string', required: false };
    assert.equal(presetText(field('metric_name')), '{"@path":"$.event"}');
    assert.equal(presetText(field('value')), '');
    assert.equal(
      startText(field('profile')),
      '{"external_id":{"@path":"$.userId"},"anonymous_id":{"@path":"$.anonymousId"}}',
    );
  });

  it('reads a field by its type: JSON, numbers, booleans, text', () => {
    assert.deepEqual(readField({ type: 'string' }, '{"@path": "$.x"}'), {
      ok: true,
      value: { '@path': '$.x' },
    });
    assert.deepEqual(readField({ type: 'string' }, '{oops'), { ok: false, problem: 'is not valid JSON' });
    assert.deepEqual(readField({ type: 'number' }, '4.5'), { ok: true, value: 4.5 });
    assert.equal(readField({ type: 'integer' }, '4.5').ok, false);
    assert.deepEqual(readField({ type: 'boolean' }, 'false'), { ok: true, value: false });
    assert.deepEqual(readField({ type: 'string' }, 'plain'), { ok: true, value: 'plain' });
  });

  it('names ids, secrets and subscriptions as the settings take them', () => {
    assert.equal(idOf('google-analytics-4'), 'google_analytics_4');
    assert.equal(idOf('1plusx'), 'd_1plusx');
    assert.equal(secretName('klaviyo', 'api_key'), 'klaviyo-api_key');
    assert.deepEqual(whenOf('purchase, sign_up'), ['purchase', 'sign_up']);
    assert.equal(whenOf('type = "track"'), 'type = "track"');
    assert.equal(whenOf('  '), undefined);
  });

  it('makes the destination: credentials as secrets, only changed fields mapped, problems named', () => {
    const fields = Object.fromEntries((track?.fields ?? []).map((f) => [f.key, startText(f)]));
    const made = destinationOf(
      {
        id: 'klaviyo',
        slug: 'klaviyo',
        settings: { api_key: 'klaviyo-api-key' },
        action: 'trackEvent',
        when: '',
        fields: { ...fields, value: '{"@path": "$.properties.total"}', batch_size: 'many' },
      },
      settings,
      track?.fields ?? [],
    );
    assert.deepEqual(made.problems, ['Batch Size: must be a number or a directive']);
    assert.deepEqual(made.destination, {
      id: 'klaviyo',
      type: 'segment_action',
      destination: 'klaviyo',
      secrets: { api_key: 'klaviyo-api-key' },
      actions: [
        {
          action: 'trackEvent',
          mapping: {
            profile: { external_id: { '@path': '$.userId' }, anonymous_id: { '@path': '$.anonymousId' } },
            value: { '@path': '$.properties.total' },
          },
        },
      ],
    });
    const missing = destinationOf(
      { id: 'k', slug: 'klaviyo', settings: {}, action: 'trackEvent', when: '', fields: {} },
      settings,
      [],
    );
    assert.deepEqual(missing.problems, ['API Key: is required']);
  });

  it('pre-fills the suggested mappings as editable entries, and saves them as a mapping (issue #95)', () => {
    // Facebook Conversions' purchase2: action_source has no default; the action needs a sync mode.
    const purchase = catalogEntry('facebook-conversions-api')?.actions.find((a) => a.key === 'purchase2');
    assert.ok(purchase);
    const suggested = suggestAction(purchase);
    const shown = formFields(purchase);
    assert.equal(shown.at(-1)?.key, SYNC_MODE_KEY, 'the sync mode is a field of the form');
    const texts = Object.fromEntries(shown.map((f) => [f.key, startText(f, suggested.mapping[f.key])]));
    assert.equal(texts['action_source'], 'website');
    assert.equal(texts[SYNC_MODE_KEY], 'add');
    const values = {
      id: 'capi',
      slug: 'facebook-conversions-api',
      settings: { pixelId: '123', token: 'capi-token' },
      action: 'purchase2',
      when: suggested.when ?? '',
      fields: texts,
    };
    const entry = catalogEntry('facebook-conversions-api');
    const made = destinationOf(values, entry?.authFields ?? [], shown);
    assert.deepEqual(made.problems, []);
    const actions = made.destination['actions'] as { mapping: Record<string, unknown> }[];
    assert.deepEqual(actions[0]?.mapping, { action_source: 'website', [SYNC_MODE_KEY]: 'add' });
    // The settings check sees a real mapping: nothing required is missing.
    assert.deepEqual(
      segmentActionProblems(made.destination as unknown as Destination).filter((p) =>
        p.includes('.actions['),
      ),
      [],
    );
    // Edited by the user, their value is saved instead; a field no rule fills starts empty.
    const edited = destinationOf({ ...values, fields: { ...texts, action_source: 'app' } }, [], shown);
    assert.equal((edited.destination['actions'] as typeof actions)[0]?.mapping['action_source'], 'app');
    const kafka = catalogEntry('kafka')?.actions.find((a) => a.key === 'send');
    const topic = kafka?.fields.find((f) => f.key === 'topic');
    assert.ok(kafka && topic);
    assert.equal(startText(topic, suggestAction(kafka).mapping['topic']), '');
  });

  it('an OAuth destination takes its oauth2 connection’s id, required (issue #78)', () => {
    const values = {
      id: 'sheets',
      slug: 'google-sheets',
      settings: {},
      action: 'postSheet',
      when: 'purchase',
      fields: {},
    };
    const made = destinationOf(values, [], [], undefined, ' google ');
    assert.deepEqual(made.problems, []);
    assert.equal(made.destination['connection'], 'google');
    assert.deepEqual(destinationOf(values, [], [], undefined, '').problems, [
      'OAuth connection: is required',
    ]);
  });
});
