/**
 * The gateway with the registry (on the Cloud Storage emulator, through Google's client): defined
 * events are validated and stamped with their definition version; a translator's endpoint turns a
 * CSV into events, checks the token's `translate:<name>` scope and the content type, and gives the
 * same event ids to the same file sent twice; when the registry cannot be read the last good copy
 * keeps serving, and with no copy at all custom events get a 503 while catalogue events pass.
 */
import assert from 'node:assert/strict';
import { Storage } from '@google-cloud/storage';
import { Definitions, translatorLookup } from '../../adapters/definitions.ts';
import { RegistryClient, RegistryReader } from '../../adapters/registry.ts';
import type { ResourceDoc } from '../../core/registry/registry.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { FakePublisher, startTestGateway, type TestGateway } from './support.ts';

const DEFINITION: ResourceDoc = {
  kind: 'EventDefinition',
  name: 'quote_requested',
  spec: {
    fields: [
      { name: 'order_id', type: 'string', required: true },
      { name: 'amount', type: 'number', required: true },
    ],
  },
};
const TRANSLATOR: ResourceDoc = {
  kind: 'Translator',
  name: 'quotes-csv',
  spec: {
    event: 'quote_requested',
    format: { type: 'csv', header: true },
    fields: [
      { target: 'order_id', source: 'Order' },
      { target: 'amount', source: 'Amount', transforms: [{ decimal: ',' }] },
    ],
  },
};
const CSV = 'Order;Amount\nQ-1;"12,5"\nQ-2;"7,0"\n'.replaceAll(';', ',');

/** A bucket whose Cloud Storage endpoint refuses connections (the client reads the emulator's env var). */
function deadBucket(name: string) {
  const saved = process.env.STORAGE_EMULATOR_HOST;
  delete process.env.STORAGE_EMULATOR_HOST;
  try {
    return new Storage({
      projectId: 'test-project',
      apiEndpoint: 'http://127.0.0.1:9',
      retryOptions: { autoRetry: false },
    }).bucket(name);
  } finally {
    process.env.STORAGE_EMULATOR_HOST = saved;
  }
}

describe('gateway: defined events and translators', () => {
  const fx = emulatorWithFreshBuckets('gateway-registry');
  let gw: TestGateway;
  let publisher: FakePublisher;
  let clock = Date.now();

  const start = async (client: RegistryClient) => {
    const reader = new RegistryReader(client, { clock: () => clock });
    publisher = new FakePublisher();
    gw = await startTestGateway({
      publisher,
      definitions: new Definitions(reader, client),
      translators: translatorLookup(reader),
    });
  };
  afterEach(() => gw?.close());

  const post = (path: string, body: string, type = 'application/json', token = gw.token) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body,
    });

  it('validates a defined event and stamps the version it was validated against', async () => {
    const client = new RegistryClient(fx.bucket);
    await client.apply([DEFINITION], { author: 'test' });
    await start(client);
    const ok = await post('/v1/topics/quote_requested', JSON.stringify({ order_id: 'Q-1', amount: 3 }));
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal(publisher.calls[0]?.messages[0]?.attributes['definition_version'], 'quote_requested@1.0');
    const bad = await post('/v1/topics/quote_requested', JSON.stringify({ order_id: 'Q-1', amount: 'x' }));
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /"field":"amount"/);
    // A producer cannot claim a definition version through the envelope's attributes.
    const forged = await post(
      '/v1/projects/test-project/topics/events:publish',
      JSON.stringify({
        messages: [
          {
            data: Buffer.from(JSON.stringify({ event_name: 'page_view' })).toString('base64'),
            attributes: { definition_version: 'quote_requested@1.0' },
          },
        ],
      }),
    );
    assert.equal(forged.status, 200);
    assert.equal(publisher.calls.at(-1)?.messages[0]?.attributes['definition_version'], undefined);
  });

  it('accepts the previous major during its grace period, with Deprecation and Sunset', async () => {
    const client = new RegistryClient(fx.bucket);
    await client.apply([DEFINITION], { author: 'test' });
    const v2: ResourceDoc = {
      ...DEFINITION,
      spec: {
        fields: [
          { name: 'order_id', type: 'string', required: true },
          { name: 'amount', type: 'string', required: true },
        ],
        accept_previous_major_until: '2099-12-31',
      },
    };
    const [change] = await client.apply([v2], { author: 'test', breaking: () => ['amount retyped'] });
    assert.equal(change?.version, '2.0');
    await start(client);
    const old = await post('/v1/topics/quote_requested', JSON.stringify({ order_id: 'Q-1', amount: 3 }));
    assert.equal(old.status, 200, await old.clone().text());
    assert.match(old.headers.get('deprecation') ?? '', /^@\d+$/);
    assert.equal(old.headers.get('sunset'), 'Fri, 01 Jan 2100 00:00:00 GMT');
    assert.equal(publisher.calls[0]?.messages[0]?.attributes['definition_version'], 'quote_requested@1.0');
    const now = await post(
      '/v1/topics/quote_requested',
      JSON.stringify({ order_id: 'Q-2', amount: 'three' }),
    );
    assert.equal(now.status, 200);
    assert.equal(now.headers.get('deprecation'), null);
    assert.equal(publisher.calls[1]?.messages[0]?.attributes['definition_version'], 'quote_requested@2.0');
  });

  it("serves a translator's endpoint with its scope, media type and stable ids", async () => {
    const client = new RegistryClient(fx.bucket);
    await client.apply([DEFINITION, TRANSLATOR], { author: 'test' });
    await start(client);
    const translate = await gw.mint(['translate:quotes-csv']);
    const res = await post('/v1/translators/quotes-csv', CSV, 'text/csv', translate);
    assert.equal(res.status, 200, await res.clone().text());
    const { messageIds } = (await res.json()) as { messageIds: string[] };
    assert.equal(messageIds.length, 2);
    const first = publisher.calls[0]?.messages.map((m) => JSON.parse(m.data.toString()));
    assert.deepEqual(
      first?.map((e) => [e.event_name, e.event_data.order_id, e.event_data.amount]),
      [
        ['quote_requested', 'Q-1', 12.5],
        ['quote_requested', 'Q-2', 7],
      ],
    );
    // The uploader's address and user agent are no row's device.
    assert.deepEqual(
      first?.map((e) => e.device),
      [undefined, undefined],
    );
    const again = await post('/v1/translators/quotes-csv', CSV, 'text/csv', translate);
    assert.equal(again.status, 200);
    const second = publisher.calls[1]?.messages.map((m) => m.attributes['event_id']);
    assert.deepEqual(
      second,
      publisher.calls[0]?.messages.map((m) => m.attributes['event_id']),
    );

    assert.equal((await post('/v1/translators/nope', CSV, 'text/csv', translate)).status, 404);
    const wrongType = await post('/v1/translators/quotes-csv', CSV, 'application/json', translate);
    assert.equal(wrongType.status, 415);
    assert.match(await wrongType.text(), /send text\/csv/);
    const publishOnly = await gw.mint(['publish:*']);
    assert.equal((await post('/v1/translators/quotes-csv', CSV, 'text/csv', publishOnly)).status, 403);
    const admin = await gw.mint(['admin']);
    assert.equal((await post('/v1/translators/quotes-csv', CSV, 'text/csv', admin)).status, 200);
    const key = await fetch(`${gw.url}/v1/translators/quotes-csv?key=${gw.key}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', origin: 'https://shop.example' },
      body: CSV,
    });
    assert.equal(key.status, 403, 'a browser write key never posts bulk payloads');
  });

  it('keeps the last good copy when the registry fails, and answers 503 for custom events with none', async () => {
    const client = new RegistryClient(fx.bucket);
    await client.apply([DEFINITION], { author: 'test' });
    await start(client);
    assert.equal(
      (await post('/v1/topics/quote_requested', JSON.stringify({ order_id: 'a', amount: 1 }))).status,
      200,
    );
    await gw.close();

    // The same reader, its copy stale, the registry gone: the copy keeps validating.
    const dead = deadBucket(fx.bucket.name);
    const reader = new RegistryReader(client, { clock: () => clock });
    const defs = new Definitions(reader, client);
    await defs.get();
    const deadClient = new RegistryClient(dead);
    Object.assign(client, { bucket: dead });
    clock += 60_000;
    publisher = new FakePublisher();
    gw = await startTestGateway({ publisher, definitions: defs });
    const stale = await post('/v1/topics/quote_requested', JSON.stringify({ order_id: 'a', amount: 'x' }));
    assert.equal(stale.status, 400, 'still validated against the last good copy');
    await gw.close();

    // A cold start with no registry at all: custom events wait, catalogue events pass.
    const coldReader = new RegistryReader(deadClient);
    gw = await startTestGateway({
      publisher,
      definitions: new Definitions(coldReader, deadClient),
      translators: translatorLookup(coldReader),
    });
    const custom = await post('/v1/topics/quote_requested', JSON.stringify({ order_id: 'a', amount: 1 }));
    assert.equal(custom.status, 503);
    assert.match(await custom.text(), /REGISTRY_UNAVAILABLE/);
    assert.ok(custom.headers.get('retry-after'));
    const catalogue = await post(
      '/v1/topics/page_view',
      JSON.stringify({ page: { url: 'https://shop.example/' } }),
    );
    assert.equal(catalogue.status, 200);
    assert.equal((await post('/v1/translators/quotes-csv', CSV, 'text/csv')).status, 503);
  });
});
