/**
 * The capturing stand-in of the catalogue destinations (local/platforms/capture.ts) on a loopback
 * port, and how `npm start` points a segment_action destination without a base_url at it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CaptureReceiver,
  splitCapturedPath,
  startCaptureReceiver,
} from '../../local/platforms/capture.ts';
import { CLIENTS_PATH } from '../../local/platforms/oauth.ts';
import { SCRIPT_PATH } from '../../local/platforms/server.ts';
import {
  DEFAULT_PORTS,
  forwardCatalogFunction,
  forwardFunction,
  type LocalContext,
  localSettings,
} from '../../local/services.ts';
import type { Settings } from '../../schemas/settings.ts';

describe('the capturing stand-in', () => {
  let stand: CaptureReceiver;
  before(async () => {
    stand = await startCaptureReceiver();
  });
  after(() => stand.close());

  const send = (path: string, init: RequestInit = {}) =>
    fetch(`${stand.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...init,
    });

  it('reads the vendor host from the first path segment', () => {
    assert.deepEqual(splitCapturedPath('/a.klaviyo.com/api/events/'), {
      host: 'a.klaviyo.com',
      path: '/api/events/',
    });
    assert.deepEqual(splitCapturedPath('/hooks.slack.com'), { host: 'hooks.slack.com', path: '/' });
    assert.equal(splitCapturedPath('/_standin/requests'), undefined);
    assert.equal(splitCapturedPath('/api/events/'), undefined);
  });

  it('records each request by host and answers by the vendor rules, {} elsewhere', async () => {
    const search = await fetch(
      `${stand.url}/companydomain.pipedrive.com/api/v1/itemSearch/field?term=u-1&field_key=id`,
    );
    assert.deepEqual(await search.json(), { success: true, data: [], additional_data: { pagination: {} } });
    const klaviyo = await send('/a.klaviyo.com/api/events/', {
      body: JSON.stringify({ data: { type: 'event' } }),
    });
    assert.equal(klaviyo.status, 202);
    const other = await send('/api.example.io/v1/things', { body: '{}' });
    assert.equal(other.status, 200);
    assert.deepEqual(await other.json(), {});
    const [captured] = stand.captured('a.klaviyo.com');
    assert.equal(captured?.method, 'POST');
    assert.equal(captured?.path, '/api/events/');
    assert.deepEqual(captured?.body, { data: { type: 'event' } });
    assert.equal(stand.captured('companydomain.pipedrive.com')[0]?.query['term'], 'u-1');
  });

  it('answers the lookups and creates Marketo and Optimizely document, the created object with its id', async () => {
    // Marketo answers 200 whatever happens; `success` says which (an error is `success: false`).
    const lookup = await fetch(
      `${stand.url}/123-abc-456.mktorest.com/rest/v1/leads.json?filterType=email&filterValues=a%40b.c`,
    );
    const found = (await lookup.json()) as { success: boolean; result: { id: number }[] };
    assert.equal(found.success, true);
    assert.equal(typeof found.result[0]?.id, 'number');
    // A lookup of several values finds one lead for each, as a batch's removal reads them.
    const several = await fetch(
      `${stand.url}/123-abc-456.mktorest.com/rest/v1/leads.json?filterType=email&filterValues=a%40b.c%2Cd%40e.f%2Cg%40h.i`,
    );
    const leads = ((await several.json()) as { result: { id: number }[] }).result;
    assert.equal(new Set(leads.map((l) => l.id)).size, 3);
    const removed = await fetch(`${stand.url}/123-abc-456.mktorest.com/rest/v1/lists/101/leads.json?id=1`, {
      method: 'DELETE',
    });
    assert.equal(((await removed.json()) as { success: boolean }).success, true);
    // Another Marketo path is none of these: `{}`, as any path without a rule.
    const other = await fetch(`${stand.url}/123-abc-456.mktorest.com/rest/v1/lists/101.json`);
    assert.deepEqual(await other.json(), {});
    // Optimizely's create answers the event it created: what was asked, with its id.
    const asked = { key: 'Order Completed', name: 'Order Completed', event_properties: [] };
    const created = await send('/api.optimizely.com/v2/projects/42/custom_events', {
      body: JSON.stringify(asked),
    });
    assert.equal(created.status, 201);
    const event = (await created.json()) as Record<string, unknown>;
    assert.deepEqual(
      { ...event, id: undefined, archived: undefined },
      {
        ...asked,
        id: undefined,
        archived: undefined,
      },
    );
    assert.equal(typeof event['id'], 'number');
    const events = await fetch(`${stand.url}/api.optimizely.com/v2/events?project_id=42`);
    assert.deepEqual(await events.json(), []);
  });

  it("answers HubSpot's batches of records as HubSpot documents them: a record for each input", async () => {
    const hubspot = (verb: string, body: unknown) =>
      send(`/api.hubapi.com/crm/v3/objects/contact/batch/${verb}`, { body: JSON.stringify(body) });
    type Batch = {
      status: string;
      results: { id: string; properties: Record<string, string>; new?: boolean }[];
    };
    // An upsert by a unique property answers each record, keyed by the value given, and `new`.
    const upsert = await hubspot('upsert', {
      inputs: [
        { idProperty: 'contact_id', id: 'p-1', properties: { plan: 'pro', seats: 3 } },
        { idProperty: 'contact_id', id: 'p-2', properties: {} },
      ],
    });
    assert.equal(upsert.status, 200);
    const upserted = (await upsert.json()) as Batch;
    assert.equal(upserted.status, 'COMPLETE');
    assert.deepEqual(
      upserted.results.map((r) => [r.properties['contact_id'], r.properties['plan'], r.properties['seats']]),
      [
        ['p-1', 'pro', '3'],
        ['p-2', undefined, undefined],
      ],
    );
    assert.deepEqual(
      upserted.results.map((r) => r.new),
      [true, true],
    );
    assert.equal(new Set(upserted.results.map((r) => r.id)).size, 2, 'each record its own id');
    assert.equal(upserted.results[0]?.properties['hs_object_id'], upserted.results[0]?.id);
    // A read by a unique property finds each value asked, with that property.
    const read = await hubspot('read', {
      properties: ['contact_id'],
      idProperty: 'contact_id',
      inputs: [{ id: 'p-1' }, { id: 'p-2' }, { id: 'p-3' }],
    });
    const found = (await read.json()) as Batch;
    assert.deepEqual(
      found.results.map((r) => r.properties['contact_id']),
      ['p-1', 'p-2', 'p-3'],
    );
    // An update answers each record it changed; a create answers 201 with the records it made.
    const update = await hubspot('update', {
      inputs: [{ idProperty: 'contact_id', id: 'p-1', properties: { plan: 'team' } }],
    });
    assert.equal(((await update.json()) as Batch).results[0]?.properties['plan'], 'team');
    const create = await hubspot('create', { inputs: [{ properties: { email: 'a@b.c' } }] });
    assert.equal(create.status, 201);
    assert.equal(((await create.json()) as Batch).results[0]?.properties['email'], 'a@b.c');
    // A single record's endpoint still answers the record, not a batch.
    const single = await send('/api.hubapi.com/crm/v3/objects/contacts', { body: '{"properties":{}}' });
    assert.equal(((await single.json()) as { id: string; results?: unknown }).results, undefined);
  });

  it("serves the OAuth stand-in's token endpoint at a token URL the catalogue data does not name", async () => {
    const registered = await send(CLIENTS_PATH, {
      body: JSON.stringify({ client_id: 'c-sf', client_secret: 's-sf', refresh_token: 'r-sf' }),
    });
    assert.equal(registered.status, 204);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    // Salesforce's token URL is its instance's, built at run time.
    const token = await send('/acme.my.salesforce.com/services/oauth2/token', {
      headers: form,
      body: 'grant_type=refresh_token&refresh_token=r-sf&client_id=c-sf&client_secret=s-sf',
    });
    assert.equal(token.status, 200);
    assert.equal(((await token.json()) as { token_type?: string }).token_type, 'Bearer');
    const unknown = await send('/acme.my.salesforce.com/services/oauth2/token', {
      headers: form,
      body: 'grant_type=refresh_token&refresh_token=nope&client_id=c-sf&client_secret=s-sf',
    });
    assert.equal(((await unknown.json()) as { error?: string }).error, 'invalid_grant');
    // A form without a grant is an ordinary request, answered by the vendor rules.
    const other = await send('/acme.my.salesforce.com/services/data', { headers: form, body: 'a=1' });
    assert.deepEqual(await other.json(), {});
  });

  it('keeps the OAuth registrations in its file: a restarted stand-in still knows the client', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventbus-oauth-clients-'));
    const file = join(dir, 'oauth-clients.jsonl');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const grant = 'grant_type=refresh_token&refresh_token=r-kept&client_id=c-kept&client_secret=s-kept';
    try {
      const first = await startCaptureReceiver({ oauthClients: file });
      const registered = await fetch(`${first.url}${CLIENTS_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: 'c-kept', client_secret: 's-kept', refresh_token: 'r-kept' }),
      });
      assert.equal(registered.status, 204);
      await first.close();
      const again = await startCaptureReceiver({ oauthClients: file });
      const token = await fetch(`${again.url}/oauth2.googleapis.com/token`, {
        method: 'POST',
        headers: form,
        body: grant,
      });
      assert.equal(token.status, 200, await token.clone().text());
      await again.close();
      // Without the file, a new stand-in knows nothing of it.
      const fresh = await startCaptureReceiver();
      const refused = await fetch(`${fresh.url}/oauth2.googleapis.com/token`, {
        method: 'POST',
        headers: form,
        body: grant,
      });
      assert.equal(refused.status, 401);
      await fresh.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers a path with no host 404, naming what it expected', async () => {
    const res = await send('/api/events/', { body: '{}' });
    assert.equal(res.status, 404);
    assert.match(((await res.json()) as { error: string }).error, /vendor host/);
  });

  it('scripts answers for one host, and with `contains` only for the requests that carry it', async () => {
    const script = await send(`${SCRIPT_PATH}/api.mixpanel.com`, {
      body: JSON.stringify({
        answers: [{ status: 429, headers: { 'retry-after': '2' }, body: { error: 'slow down' } }],
        contains: 'evt-2',
      }),
    });
    assert.equal(script.status, 204);
    // Another host, and a request at the host without the text, take their rules.
    assert.equal((await send('/api2.amplitude.com/2/httpapi', { body: '{"id":"evt-2"}' })).status, 200);
    assert.equal((await send('/api.mixpanel.com/import', { body: '[{"id":"evt-1"}]' })).status, 200);
    const throttled = await send('/api.mixpanel.com/import', { body: '[{"id":"evt-2"}]' });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('retry-after'), '2');
    assert.equal((await send('/api.mixpanel.com/import', { body: '[{"id":"evt-2"}]' })).status, 200);
    assert.deepEqual(
      stand.captured('api.mixpanel.com').map((r) => r.status),
      [200, 429, 200],
    );
  });

  it('refuses a script without answers, and lists what arrived over HTTP', async () => {
    const bad = await send(`${SCRIPT_PATH}/api.mixpanel.com`, {
      body: JSON.stringify({ answers: [{ status: 9 }] }),
    });
    assert.equal(bad.status, 400);
    const res = await fetch(`${stand.url}/_standin/requests?host=api2.amplitude.com`);
    const { requests } = (await res.json()) as { requests: { host: string; path: string }[] };
    assert.deepEqual(
      requests.map((r) => `${r.host}${r.path}`),
      ['api2.amplitude.com/2/httpapi'],
    );
  });
});

describe('npm start and the capturing stand-in', () => {
  const settings = {
    destinations: [
      { id: 'klaviyo', type: 'segment_action', destination: 'klaviyo' },
      { id: 'proxied', type: 'segment_action', destination: 'braze', base_url: 'https://egress.example.com' },
      { id: 'meta', type: 'meta_capi', base_url: 'http://127.0.0.1:8099/meta' },
    ],
  } as unknown as Settings;

  it('leaves every base_url as written: forward-catalog is told the stand-in instead, and judges the real target first (#98)', () => {
    const local = localSettings(settings, DEFAULT_PORTS);
    assert.deepEqual(
      local.destinations?.map((d) => d.base_url),
      [undefined, 'https://egress.example.com', 'http://127.0.0.1:8099/meta'],
    );
    const moved = localSettings(settings, { ...DEFAULT_PORTS, receiver: 18099 });
    assert.deepEqual(
      moved.destinations?.map((d) => d.base_url),
      [undefined, 'https://egress.example.com', 'http://127.0.0.1:18099/meta'],
    );
    const ctx: LocalContext = {
      root: '/repo',
      dataDir: '/data',
      logDir: '/data/logs',
      ports: { ...DEFAULT_PORTS, receiver: 18099 },
      settings: moved,
      project: 'local-project',
      node: process.execPath,
    };
    assert.equal(forwardCatalogFunction(ctx).env['EVENTBUS_CAPTURE_URL'], 'http://127.0.0.1:18099/capture');
    assert.equal(forwardFunction(ctx).env['EVENTBUS_CAPTURE_URL'], undefined, 'forward captures nothing');
  });
});
