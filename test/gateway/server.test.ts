import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openapiDocument } from '../../gateway/openapi.ts';
import {
  baseSettings,
  FakePublisher,
  fieldsOf,
  ORIGIN,
  post,
  reasonOf,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const vc = (over: Record<string, unknown> = {}) => ({
  event_name: 'view_content',
  content_name: 'Shoe',
  content_type: 'product',
  ...over,
});

describe('gateway: publishing', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let auth: Record<string, string>;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub });
    auth = { authorization: `Bearer ${g.token}` };
  });
  afterEach(() => g.close());

  it('publishes one event and answers its messageId with event attributes', async () => {
    const a = await post(`${g.url}/v1/topics/events`, vc({ source: 'web' }), {
      ...auth,
      'user-agent': 'ua/1',
    });
    assert.equal(a.status, 200);
    assert.deepEqual(a.body, { messageIds: ['1'] });
    const m = pub.calls[0]?.messages[0];
    const event = JSON.parse(m?.data.toString() ?? '{}');
    assert.equal(pub.calls[0]?.topic, 'events');
    assert.deepEqual(m?.attributes, {
      event_name: 'view_content',
      event_id: event.event_id,
      schema_version: '1',
      // The gateway minted the id and stamped the time; a token is a server, whose own address
      // and user agent are never the person's (test/gateway/sender.test.ts).
      server_fields: 'event_id,event_time',
      source: 'web',
      // The kind of credential it came with (the identity graph reads it: docs/sessions.md).
      credential: 'token',
      // Who sent it (core/sender.ts): the drivers' default action_source follows it.
      sender: 'server',
    });
    assert.match(event.event_id, /^[0-9a-f-]{36}$/);
    assert.equal(event.device, undefined);
    assert.deepEqual(event.event_data, { content_name: 'Shoe', content_type: 'product' });
  });

  it('publishes an array in ONE call with ids in order', async () => {
    const a = await post(
      `${g.url}/v1/topics/events`,
      [vc(), vc({ content_name: 'B' }), { event_name: 'quote_requested' }],
      auth,
    );
    assert.deepEqual(a.body, { messageIds: ['1', '2', '3'] });
    assert.equal(pub.calls.length, 1);
    assert.deepEqual(
      pub.calls[0]?.messages.map((m) => m.attributes['event_name']),
      ['view_content', 'view_content', 'quote_requested'],
    );
    assert.equal(pub.calls[0]?.messages[2]?.attributes['schema_version'], '0');
  });

  it('rejects a batch whole, naming each bad field, and publishes nothing', async () => {
    const a = await post(
      `${g.url}/v1/topics/events`,
      [vc(), vc({ content_name: undefined }), vc({ value: 'x' })],
      auth,
    );
    assert.equal(a.status, 400);
    assert.equal(reasonOf(a), 'INVALID_EVENT');
    assert.deepEqual(fieldsOf(a), ['[1].content_name', '[2].value']);
    assert.equal(pub.published, 0);
  });

  it('treats an event name in the path as an alias for events', async () => {
    const a = await post(`${g.url}/v1/topics/view_content`, { content_name: 'a', content_type: 'b' }, auth);
    assert.equal(a.status, 200);
    assert.equal(pub.calls[0]?.topic, 'events');
    assert.equal(pub.calls[0]?.messages[0]?.attributes['event_name'], 'view_content');
    const other = await post(`${g.url}/v1/topics/backend_events`, vc(), auth);
    assert.equal(other.status, 200);
    assert.equal(pub.calls[1]?.topic, 'backend_events');
  });

  it('answers 404 for topics that are neither configured nor event names', async () => {
    for (const t of ['deliveries', 'Events', 'ga_thing', 'no-such-topic', '%2e%2e', 'events%2Fx']) {
      const a = await post(`${g.url}/v1/topics/${t}`, vc(), auth);
      assert.equal(a.status, 404, t);
      assert.equal(a.body.error?.status, 'NOT_FOUND');
    }
    assert.equal((await post(`${g.url}/v1/projects/other/topics/events:publish`, vc(), auth)).status, 404);
    assert.equal(
      (await post(`${g.url}/v1/projects/test-project/topics/view_content:publish`, vc(), auth)).status,
      404,
    );
  });

  it('accepts the Pub/Sub envelope and a plain event on the :publish path', async () => {
    const data = Buffer.from(JSON.stringify(vc())).toString('base64');
    const env = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data, attributes: { origin_system: 'crm', event_name: 'spoofed' } }, { data }] },
      auth,
    );
    assert.deepEqual(env.body, { messageIds: ['1', '2'] });
    assert.equal(pub.calls[0]?.messages[0]?.attributes['origin_system'], 'crm');
    assert.equal(pub.calls[0]?.messages[0]?.attributes['event_name'], 'view_content');
    const plain = await post(`${g.url}/v1/projects/test-project/topics/events:publish`, vc(), auth);
    assert.deepEqual(plain.body, { messageIds: ['3'] });
    // Attribute names that are Object.prototype names are attributes like any other.
    const odd = JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>;
    const kept = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data, attributes: odd }] },
      auth,
    );
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    const attributes = pub.calls.at(-1)?.messages[0]?.attributes ?? {};
    assert.equal(Object.getOwnPropertyDescriptor(attributes, '__proto__')?.value, 'p');
    assert.equal(Object.getOwnPropertyDescriptor(attributes, 'constructor')?.value, 'c');
    const bad = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      {
        messages: [{ data: Buffer.from(JSON.stringify({ event_name: 'view_content' })).toString('base64') }],
      },
      auth,
    );
    assert.deepEqual(fieldsOf(bad), ['messages[0].data.content_name', 'messages[0].data.content_type']);
  });

  it('refuses attribute names Pub/Sub reserves (goog…) or sets on dead letters (CloudPubSub…)', async () => {
    const data = Buffer.from(JSON.stringify(vc())).toString('base64');
    for (const name of ['googclient_x', 'CloudPubSubDeadLetterSourceSubscription', 'CloudPubSubAnything']) {
      const a = await post(
        `${g.url}/v1/projects/test-project/topics/events:publish`,
        { messages: [{ data, attributes: { [name]: 'admin' } }] },
        auth,
      );
      assert.equal(a.status, 400, name);
      assert.equal(reasonOf(a), 'INVALID_ENVELOPE', name);
      assert.match(a.body.error?.message ?? '', /reserved/, name);
    }
    assert.equal(pub.published, 0);
  });

  it('parses text/plain bodies (sendBeacon) and gzip, and refuses other types', async () => {
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { ...auth, 'content-type': 'text/plain;charset=UTF-8' }))
        .status,
      200,
    );
    const gz = gzipSync(JSON.stringify([vc(), vc()]));
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, gz, { ...auth, 'content-encoding': 'gzip' }, true)).status,
      200,
    );
    const x = await post(`${g.url}/v1/topics/events`, vc(), { ...auth, 'content-type': 'application/xml' });
    assert.equal(x.status, 415);
    assert.equal(x.body.error?.status, 'INVALID_ARGUMENT');
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { ...auth, 'content-encoding': 'br' })).status,
      415,
    );
  });

  it('caps inflated gzip bodies', async () => {
    const bomb = gzipSync(Buffer.alloc(20_000_000, 0x20));
    const a = await post(`${g.url}/v1/topics/events`, bomb, { ...auth, 'content-encoding': 'gzip' }, true);
    assert.equal(a.status, 413);
    assert.equal(reasonOf(a), 'REQUEST_TOO_LARGE');
  });

  it('answers 503 with Retry-After when the bus does not acknowledge', async () => {
    pub.mode = 'unavailable';
    const a = await post(`${g.url}/v1/topics/events`, vc(), auth);
    assert.equal(a.status, 503);
    assert.equal(a.body.error?.status, 'UNAVAILABLE');
    assert.equal(a.headers.get('retry-after'), '2');
  });

  it('serves /health, 405 for other methods, and CORS for configured origins', async () => {
    assert.equal((await fetch(`${g.url}/health`)).status, 200);
    const get = await fetch(`${g.url}/v1/topics/events`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
    const pre = await fetch(`${g.url}/v1/topics/events`, { method: 'OPTIONS', headers: { origin: ORIGIN } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), ORIGIN);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /x-write-key/);
    assert.equal(
      (
        await fetch(`${g.url}/v1/topics/events`, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example' },
        })
      ).status,
      403,
    );
    const a = await post(`${g.url}/v1/topics/events`, vc(), { ...auth, origin: ORIGIN });
    assert.equal(a.headers.get('access-control-allow-origin'), ORIGIN);
  });

  it('serves the OpenAPI document, and docs/openapi.json is current', async () => {
    const served = await (await fetch(`${g.url}/v1/openapi.json`)).json();
    assert.deepEqual(served, openapiDocument());
    const committed = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
    assert.deepEqual(committed, openapiDocument(), 'regenerate: node gateway/openapi-write.ts');
  });
});

describe('gateway: credentials', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({
      publisher: pub,
      settings: baseSettings({ tokens: { rate_limit_per_second: 1, burst: 1 } }),
    });
  });
  afterEach(() => g.close());

  it('401 UNAUTHENTICATED without a credential, 401 for bad or expired ones', async () => {
    const none = await post(`${g.url}/v1/topics/events`, vc());
    assert.equal(none.status, 401);
    assert.equal(reasonOf(none), 'UNAUTHENTICATED');
    for (const bearer of [
      'nope',
      `${g.token.slice(0, -2)}xx`,
      'ebt_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      const a = await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${bearer}` });
      assert.equal(a.status, 401, bearer);
      assert.equal(reasonOf(a), 'INVALID_CREDENTIALS');
    }
    const expired = await g.mint(['publish:*'], { expiresAt: new Date(Date.now() - 1000) });
    const a = await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${expired}` });
    assert.equal(a.status, 401);
    assert.match(a.body.error?.message ?? '', /expired/);
    assert.equal(pub.published, 0);
  });

  it('accepts a token created after start (re-reads the store)', async () => {
    const t = await g.mint(['publish:*']);
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${t}` })).status,
      200,
    );
  });

  it('403 when the scope does not cover the topic or event', async () => {
    const t = await g.mint(['publish:view_content']);
    const h = { authorization: `Bearer ${t}` };
    assert.equal((await post(`${g.url}/v1/topics/events`, vc(), h)).status, 200);
    const denied = await post(
      `${g.url}/v1/topics/events`,
      [vc(), { event_name: 'search', search_term: 'x' }],
      h,
    );
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error?.status, 'PERMISSION_DENIED');
    const topicScoped = await g.mint(['publish:backend_events']);
    assert.equal(
      (await post(`${g.url}/v1/topics/backend_events`, vc(), { authorization: `Bearer ${topicScoped}` }))
        .status,
      200,
    );
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${topicScoped}` })).status,
      403,
    );
    const translate = await g.mint(['translate:shopify']);
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${translate}` })).status,
      403,
    );
  });

  it('an event scope publishes only its event, a topic scope only its topic, in every form', async () => {
    const eventScoped = { authorization: `Bearer ${await g.mint(['publish:view_content'])}` };
    const topicScoped = { authorization: `Bearer ${await g.mint(['publish:backend_events'])}` };
    const search = { event_name: 'search', search_term: 'x' };
    const envelope = (...events: object[]) => ({
      messages: events.map((e) => ({ data: Buffer.from(JSON.stringify(e)).toString('base64') })),
    });
    const publishUrl = (topic: string) => `${g.url}/v1/projects/test-project/topics/${topic}:publish`;
    const cases: [string, string, unknown, Record<string, string>, number][] = [
      [
        'plain, event path',
        `${g.url}/v1/topics/view_content`,
        { content_name: 'S', content_type: 'p' },
        eventScoped,
        200,
      ],
      ['plain, events topic', `${g.url}/v1/topics/events`, vc(), eventScoped, 200],
      ['plain, other topic', `${g.url}/v1/topics/backend_events`, vc(), eventScoped, 403],
      ['plain, foreign event', `${g.url}/v1/topics/events`, search, eventScoped, 403],
      ['plain batch, one foreign', `${g.url}/v1/topics/events`, [vc(), vc(), search], eventScoped, 403],
      [':publish plain', publishUrl('events'), vc(), eventScoped, 200],
      [':publish plain, other topic', publishUrl('backend_events'), vc(), eventScoped, 403],
      ['envelope', publishUrl('events'), envelope(vc()), eventScoped, 200],
      ['envelope, other topic', publishUrl('backend_events'), envelope(vc()), eventScoped, 403],
      ['envelope batch, one foreign', publishUrl('events'), envelope(vc(), search), eventScoped, 403],
      ['topic scope, plain', `${g.url}/v1/topics/backend_events`, [vc(), search], topicScoped, 200],
      [
        'topic scope, event path',
        `${g.url}/v1/topics/view_content`,
        { content_name: 'S', content_type: 'p' },
        topicScoped,
        403,
      ],
      ['topic scope, events topic', `${g.url}/v1/topics/events`, vc(), topicScoped, 403],
      ['topic scope, :publish', publishUrl('backend_events'), envelope(vc(), search), topicScoped, 200],
      ['topic scope, :publish events', publishUrl('events'), envelope(vc()), topicScoped, 403],
      // The topic's name used as an event name does not make the topic scope an event scope.
      [
        'topic scope, its name as event',
        publishUrl('events'),
        { event_name: 'backend_events' },
        topicScoped,
        403,
      ],
    ];
    for (const [name, url, body, headers, status] of cases) {
      const before = pub.published;
      const a = await post(url, body, headers);
      assert.equal(a.status, status, `${name}: ${JSON.stringify(a.body)}`);
      if (status === 403) {
        assert.equal(a.body.error?.status, 'PERMISSION_DENIED', name);
        assert.equal(pub.published, before, `${name} published nothing`);
      }
    }
  });

  it('takes write keys in ?key= or X-Write-Key, only from their origins', async () => {
    assert.equal(
      (
        await post(`${g.url}/v1/topics/events?key=${g.key}`, vc(), {
          origin: ORIGIN,
          'content-type': 'text/plain',
        })
      ).status,
      200,
    );
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { origin: ORIGIN, 'x-write-key': g.key })).status,
      200,
    );
    const wrong = await post(`${g.url}/v1/topics/events?key=${g.key}`, vc(), {
      origin: 'https://evil.example',
    });
    assert.equal(wrong.status, 403);
    assert.equal(reasonOf(wrong), 'ORIGIN_NOT_ALLOWED');
    assert.equal((await post(`${g.url}/v1/topics/events?key=${g.key}`, vc())).status, 403);
    const asBearer = await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${g.key}` });
    assert.equal(asBearer.status, 401);
  });

  it('refuses two credentials, including two Authorization headers', async () => {
    const both = await post(`${g.url}/v1/topics/events?key=${g.key}`, vc(), {
      origin: ORIGIN,
      authorization: `Bearer ${g.token}`,
    });
    assert.equal(both.status, 401);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${g.url}/v1/topics/events`, {
        method: 'POST',
        headers: [
          ['content-type', 'application/json'],
          ['authorization', `Bearer ${g.token}`],
          ['authorization', `Bearer ${g.token}`],
        ].flat(),
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(JSON.stringify(vc()));
    });
    assert.equal(status, 401);
    assert.equal(pub.published, 0);
  });

  it('rate-limits per credential with 429 and Retry-After', async () => {
    const t = await g.mint(['publish:*'], { rate: 1 });
    const h = { authorization: `Bearer ${t}` };
    assert.equal((await post(`${g.url}/v1/topics/events`, vc(), h)).status, 200);
    const limited = await post(`${g.url}/v1/topics/events`, vc(), h);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error?.status, 'RESOURCE_EXHAUSTED');
    assert.equal(limited.headers.get('retry-after'), '1');
    // Another credential has its own bucket.
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, vc(), { authorization: `Bearer ${g.token}` })).status,
      200,
    );
  });
});

describe('gateway: slow clients', () => {
  it('answers 408 DEADLINE_EXCEEDED when the body does not arrive in time, and keeps serving', async () => {
    const pub = new FakePublisher();
    const g = await startTestGateway({ publisher: pub, bodyTimeoutMs: 200 });
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${g.url}/v1/topics/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': '100',
            authorization: `Bearer ${g.token}`,
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write('{"event_name":'); // …and never the rest
      });
      assert.equal(answer.status, 408);
      assert.equal(JSON.parse(answer.body).error.status, 'DEADLINE_EXCEEDED');
      assert.equal(pub.published, 0);
      assert.equal((await fetch(`${g.url}/health`)).status, 200);
    } finally {
      await g.close();
    }
  });
});
