/**
 * Raw HTTP against the REST surface: every route, every error row of docs/google-wire.md §1 (status,
 * status string, message shape), limits at and just past each bound, a filter change refused.
 */
import assert from 'node:assert/strict';
import { errorOf, type Running, rest, start } from './support/harness.ts';

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const T = '/v1/projects/p/topics';
const S = '/v1/projects/p/subscriptions';

describe('pubsub emulator REST', () => {
  let run: Running;
  let base: string;
  const call = (method: string, path: string, body?: unknown, raw?: string) =>
    rest(base, method, path, body, raw);
  const publish = (topic: string, messages: unknown) => call('POST', `${T}/${topic}:publish`, { messages });

  before(async () => {
    run = await start();
    base = run.emulator.url;
    assert.equal((await call('PUT', `${T}/t`)).status, 200);
    assert.equal((await call('PUT', `${T}/dlq`)).status, 200);
  });
  after(async () => {
    await run.stop();
  });

  it('answers GET / with Ok and GET /health with status ok', async () => {
    const root = await fetch(`${base}/`);
    assert.equal(root.status, 200);
    assert.equal((await root.text()).trim(), 'Ok');
    const health = await call('GET', '/health');
    assert.deepEqual(health, { status: 200, body: { status: 'ok' } });
  });

  it('serves every topic route', async () => {
    const created = await call('PUT', `${T}/routes-t`, { labels: { team: 'a' } });
    assert.deepEqual(created.body, { name: 'projects/p/topics/routes-t', labels: { team: 'a' } });
    assert.deepEqual((await call('GET', `${T}/routes-t`)).body, created.body);
    const patched = await call('PATCH', `${T}/routes-t`, {
      topic: { labels: { team: 'b' }, messageRetentionDuration: '3600s' },
      updateMask: 'labels,messageRetentionDuration',
    });
    assert.deepEqual(patched.body, {
      name: 'projects/p/topics/routes-t',
      labels: { team: 'b' },
      messageRetentionDuration: '3600s',
    });
    const list = await call('GET', T);
    assert.ok(
      (list.body['topics'] as { name: string }[]).some((t) => t.name === 'projects/p/topics/routes-t'),
    );
    const paged = await call('GET', `${T}?pageSize=1`);
    assert.equal((paged.body['topics'] as unknown[]).length, 1);
    assert.equal(typeof paged.body['nextPageToken'], 'string');
    await call('PUT', `${S}/routes-s`, { topic: 'projects/p/topics/routes-t' });
    assert.deepEqual((await call('GET', `${T}/routes-t/subscriptions`)).body, {
      subscriptions: ['projects/p/subscriptions/routes-s'],
    });
    const pub = await publish('routes-t', [{ data: b64('x'), attributes: { k: 'v' }, orderingKey: 'u1' }]);
    assert.equal(pub.status, 200);
    assert.match((pub.body['messageIds'] as string[])[0] ?? '', /^\d+$/);
    assert.deepEqual(await call('DELETE', `${T}/routes-t`), { status: 200, body: {} });
    assert.equal((await call('GET', `${T}/routes-t`)).status, 404);
    assert.equal((await call('GET', `${S}/routes-s`)).body['topic'], '_deleted-topic_');
  });

  it('serves every subscription route', async () => {
    const created = await call('PUT', `${S}/rs`, {
      topic: 'projects/p/topics/t',
      ackDeadlineSeconds: 0,
      deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dlq' },
      retryPolicy: { minimumBackoff: '0.1s' },
    });
    assert.equal(created.status, 200);
    assert.deepEqual(created.body, {
      name: 'projects/p/subscriptions/rs',
      topic: 'projects/p/topics/t',
      pushConfig: {},
      ackDeadlineSeconds: 10,
      messageRetentionDuration: '604800s',
      deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dlq', maxDeliveryAttempts: 5 },
      retryPolicy: { minimumBackoff: '0.1s', maximumBackoff: '600s' },
      state: 'ACTIVE',
    });
    assert.deepEqual((await call('GET', `${S}/rs`)).body, created.body);
    const list = await call('GET', S);
    assert.ok(
      (list.body['subscriptions'] as { name: string }[]).some(
        (s) => s.name === 'projects/p/subscriptions/rs',
      ),
    );
    const patched = await call('PATCH', `${S}/rs`, {
      subscription: { ackDeadlineSeconds: 30 },
      updateMask: 'ack_deadline_seconds',
    });
    assert.equal(patched.body['ackDeadlineSeconds'], 30);

    assert.deepEqual(await call('POST', `${S}/rs:pull`, { maxMessages: 5, returnImmediately: true }), {
      status: 200,
      body: {},
    });
    await publish('t', [{ data: b64('hello'), attributes: { a: 'b' } }]);
    const pulled = await call('POST', `${S}/rs:pull`, { maxMessages: 5 });
    const [rm] = pulled.body['receivedMessages'] as {
      ackId: string;
      message: Record<string, unknown>;
      deliveryAttempt: number;
    }[];
    assert.ok(rm);
    assert.equal(rm.deliveryAttempt, 1);
    assert.equal(rm.message['data'], b64('hello'));
    assert.deepEqual(rm.message['attributes'], { a: 'b' });
    assert.match(String(rm.message['publishTime']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // modifyAckDeadline 0 is a nack: the message comes straight back, attempt 2.
    assert.deepEqual(
      await call('POST', `${S}/rs:modifyAckDeadline`, { ackIds: [rm.ackId], ackDeadlineSeconds: 0 }),
      {
        status: 200,
        body: {},
      },
    );
    // The retry policy's 0.1 s backoff applies before the redelivery.
    await new Promise((r) => setTimeout(r, 150));
    const again = await call('POST', `${S}/rs:pull`, { maxMessages: 5 });
    const [rm2] = again.body['receivedMessages'] as { ackId: string; deliveryAttempt: number }[];
    assert.equal(rm2?.deliveryAttempt, 2);
    assert.deepEqual(await call('POST', `${S}/rs:acknowledge`, { ackIds: [rm2?.ackId] }), {
      status: 200,
      body: {},
    });
    assert.deepEqual(await call('POST', `${S}/rs:pull`, { maxMessages: 5, returnImmediately: true }), {
      status: 200,
      body: {},
    });

    const push = await call('POST', `${S}/rs:modifyPushConfig`, {
      pushConfig: { pushEndpoint: 'http://127.0.0.1:9/' },
    });
    assert.equal(push.status, 200);
    assert.deepEqual((await call('GET', `${S}/rs`)).body['pushConfig'], {
      pushEndpoint: 'http://127.0.0.1:9/',
    });
    await call('POST', `${S}/rs:modifyPushConfig`, { pushConfig: {} });
    assert.deepEqual(await call('DELETE', `${S}/rs`), { status: 200, body: {} });
    assert.equal(errorOf(await call('GET', `${S}/rs`)).status, 'NOT_FOUND');
  });

  it('refuses a filter change, and accepts a no-op filter in the mask', async () => {
    await call('PUT', `${S}/fs`, { topic: 'projects/p/topics/t', filter: 'attributes.kind = "a"' });
    const changed = await call('PATCH', `${S}/fs`, {
      subscription: { filter: 'attributes.kind = "b"' },
      updateMask: 'filter',
    });
    assert.equal(changed.status, 400);
    assert.equal(errorOf(changed).status, 'INVALID_ARGUMENT');
    assert.match(errorOf(changed).message, /filter of a subscription cannot be changed/);
    const same = await call('PATCH', `${S}/fs`, {
      subscription: { filter: 'attributes.kind = "a"' },
      updateMask: 'filter',
    });
    assert.equal(same.status, 200);
  });

  describe('error rows of docs/google-wire.md §1', () => {
    const rows: {
      name: string;
      req: () => Promise<{ status: number; body: Record<string, unknown> }>;
      http: number;
      status: string;
      message: RegExp;
      field?: string;
    }[] = [
      {
        name: 'malformed JSON',
        req: () => call('POST', `${T}/t:publish`, undefined, '{"messages": [}'),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message: /^Invalid JSON payload received\. Unexpected token\./,
      },
      {
        name: 'unknown field',
        req: () => publish('t', [{ data: b64('x'), foo: 1 }]),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message:
          /^Invalid JSON payload received\. Unknown name "foo" at 'messages\[0\]': Cannot find field\.$/,
      },
      {
        name: 'messages missing',
        req: () => call('POST', `${T}/t:publish`, {}),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message:
          /^The value for message_count is too small\. You passed 0 in the request, but the minimum value is 1\.$/,
      },
      {
        name: 'messages empty',
        req: () => publish('t', []),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message:
          /^The value for message_count is too small\. You passed 0 in the request, but the minimum value is 1\.$/,
      },
      {
        name: 'more than 1000 messages',
        req: () =>
          publish(
            't',
            Array.from({ length: 1001 }, () => ({ data: 'eA==' })),
          ),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message: /too large.*maximum value is 1000\.$/,
      },
      {
        name: 'empty message',
        req: () => publish('t', [{ data: '' }]),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message:
          /^One or more messages in the publish request is empty\. Each message must contain either non-empty data, or at least one attribute\.$/,
      },
      {
        name: 'bad base64',
        req: () => publish('t', [{ data: 'not base64!' }]),
        http: 400,
        status: 'INVALID_ARGUMENT',
        message:
          /^Invalid value at 'messages\[0\]\.data' \(TYPE_BYTES\), Base64 decoding failed for "not base64!"$/,
        field: 'messages[0].data',
      },
      {
        name: 'topic not found',
        req: () => publish('missing', [{ data: 'eA==' }]),
        http: 404,
        status: 'NOT_FOUND',
        message: /^Resource not found \(resource=missing\)\.$/,
      },
      {
        name: 'already exists',
        req: () => call('PUT', `${T}/t`),
        http: 409,
        status: 'ALREADY_EXISTS',
        message: /^Resource already exists in the project \(resource=t\)\.$/,
      },
      {
        name: 'bad credentials',
        req: async () => {
          const res = await fetch(`${base}${T}/t`, { headers: { authorization: 'Basic abc' } });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        },
        http: 401,
        status: 'UNAUTHENTICATED',
        message: /^Request had invalid authentication credentials\./,
      },
    ];
    for (const row of rows) {
      it(`${row.name} → ${row.http} ${row.status}`, async () => {
        const res = await row.req();
        assert.equal(res.status, row.http);
        const err = errorOf(res);
        assert.equal(err.code, row.http);
        assert.equal(err.status, row.status);
        assert.match(err.message, row.message);
        if (row.field) {
          assert.deepEqual(err.details, [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [{ field: row.field, description: err.message }],
            },
          ]);
        }
      });
    }
    it('a null body or a null list element → 400 INVALID_ARGUMENT, never INTERNAL', async () => {
      // A null body is an empty request: each route then names what is missing.
      const noTopic = await call('PUT', `${S}/null-s`, undefined, 'null');
      assert.equal(noTopic.status, 400, JSON.stringify(noTopic.body));
      assert.equal((await call('PUT', `${S}/null-s`, { topic: 'projects/p/topics/t' })).status, 200);
      for (const [method, path] of [
        ['POST', `${T}/t:publish`],
        ['POST', `${S}/null-s:pull`],
        ['POST', `${S}/null-s:acknowledge`],
      ] as const) {
        const res = await call(method, path, undefined, 'null');
        assert.equal(res.status, 400, `${method} ${path}: ${JSON.stringify(res.body)}`);
        assert.equal(errorOf(res).status, 'INVALID_ARGUMENT');
      }
      const element = await publish('t', [null]);
      assert.equal(element.status, 400);
      assert.equal(
        errorOf(element).message,
        "Invalid JSON payload received. Expected an object at 'messages[0]'.",
      );
      const ackIds = await call('POST', `${S}/null-s:acknowledge`, { ackIds: [null] });
      assert.equal(ackIds.status, 400);
      assert.equal(errorOf(ackIds).status, 'INVALID_ARGUMENT');
      assert.equal((await call('DELETE', `${S}/null-s`)).status, 200);
    });
    it('unknown route → 404 NOT_FOUND in the same envelope', async () => {
      const res = await call('GET', '/v1/projects/p/nothing');
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).status, 'NOT_FOUND');
    });
  });

  describe('limits at and just past each bound', () => {
    const attrs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    const publishCases: { name: string; ok: unknown[]; bad: unknown[] }[] = [
      {
        name: '1000 messages per request',
        ok: Array.from({ length: 1000 }, () => ({ data: 'eA==' })),
        bad: Array.from({ length: 1001 }, () => ({ data: 'eA==' })),
      },
      { name: '100 attributes', ok: [{ attributes: attrs(100) }], bad: [{ attributes: attrs(101) }] },
      {
        name: 'attribute key 256 bytes',
        ok: [{ attributes: { ['k'.repeat(256)]: 'v' } }],
        bad: [{ attributes: { ['k'.repeat(257)]: 'v' } }],
      },
      {
        name: 'attribute value 1024 bytes',
        ok: [{ attributes: { k: 'v'.repeat(1024) } }],
        bad: [{ attributes: { k: 'v'.repeat(1025) } }],
      },
      {
        name: 'ordering key 1024 bytes',
        ok: [{ data: 'eA==', orderingKey: 'o'.repeat(1024) }],
        bad: [{ data: 'eA==', orderingKey: 'o'.repeat(1025) }],
      },
      {
        name: 'reserved "goog" attribute keys',
        ok: [{ data: 'eA==', attributes: { gog: 'v', x_goog: 'v' } }],
        bad: [{ data: 'eA==', attributes: { googx: 'v' } }],
      },
      {
        name: 'one ordering key per request',
        ok: [
          { data: 'eA==', orderingKey: 'a' },
          { data: 'eA==', orderingKey: 'a' },
        ],
        bad: [
          { data: 'eA==', orderingKey: 'a' },
          { data: 'eA==', orderingKey: 'b' },
        ],
      },
      {
        name: '10,000,000 bytes per message',
        ok: [{ data: b64(Buffer.alloc(10_000_000, 1)) }],
        bad: [{ data: b64(Buffer.alloc(10_000_001, 1)) }],
      },
      {
        name: '10,000,000 bytes per request',
        ok: [{ data: b64(Buffer.alloc(5_000_000, 1)) }, { data: b64(Buffer.alloc(5_000_000, 1)) }],
        bad: [{ data: b64(Buffer.alloc(5_000_000, 1)) }, { data: b64(Buffer.alloc(5_000_001, 1)) }],
      },
    ];
    for (const c of publishCases) {
      it(`publish: ${c.name}`, async () => {
        assert.equal((await publish('t', c.ok)).status, 200);
        const bad = await publish('t', c.bad);
        assert.equal(bad.status, 400);
        assert.equal(errorOf(bad).status, 'INVALID_ARGUMENT');
      });
    }

    const subCases: { name: string; ok: Record<string, unknown>; bad: Record<string, unknown> }[] = [
      {
        name: 'filter 256 bytes',
        ok: { filter: `attributes.k = "${'v'.repeat(239)}"` },
        bad: { filter: `attributes.k = "${'v'.repeat(240)}"` },
      },
      { name: 'ackDeadlineSeconds ≥ 10', ok: { ackDeadlineSeconds: 10 }, bad: { ackDeadlineSeconds: 9 } },
      { name: 'ackDeadlineSeconds ≤ 600', ok: { ackDeadlineSeconds: 600 }, bad: { ackDeadlineSeconds: 601 } },
      {
        name: 'maxDeliveryAttempts ≥ 5',
        ok: { deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dlq', maxDeliveryAttempts: 5 } },
        bad: { deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dlq', maxDeliveryAttempts: 4 } },
      },
      {
        name: 'maxDeliveryAttempts ≤ 100',
        ok: { deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dlq', maxDeliveryAttempts: 100 } },
        bad: { deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dlq', maxDeliveryAttempts: 101 } },
      },
      {
        name: 'retention ≥ 10 min',
        ok: { messageRetentionDuration: '600s' },
        bad: { messageRetentionDuration: '599s' },
      },
      {
        name: 'retention ≤ 31 days',
        ok: { messageRetentionDuration: '2678400s' },
        bad: { messageRetentionDuration: '2678401s' },
      },
      {
        name: 'backoff ≤ 600 s (minimum 0 s allowed)',
        ok: { retryPolicy: { minimumBackoff: '0s', maximumBackoff: '600s' } },
        bad: { retryPolicy: { minimumBackoff: '0s', maximumBackoff: '601s' } },
      },
    ];
    let n = 0;
    for (const c of subCases) {
      it(`subscription: ${c.name}`, async () => {
        n++;
        const ok = await call('PUT', `${S}/lim-ok-${n}`, { topic: 'projects/p/topics/t', ...c.ok });
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        const bad = await call('PUT', `${S}/lim-bad-${n}`, { topic: 'projects/p/topics/t', ...c.bad });
        assert.equal(bad.status, 400);
        assert.equal(errorOf(bad).status, 'INVALID_ARGUMENT');
      });
    }

    it('subscription: the dead-letter topic must exist', async () => {
      const res = await call('PUT', `${S}/lim-dlq`, {
        topic: 'projects/p/topics/t',
        deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/none' },
      });
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).status, 'NOT_FOUND');
    });

    it('pull: maxMessages ≥ 1; acknowledge needs ack ids; modifyAckDeadline ≤ 600', async () => {
      await call('PUT', `${S}/lim-pull`, { topic: 'projects/p/topics/t' });
      assert.equal((await call('POST', `${S}/lim-pull:pull`, { maxMessages: 0 })).status, 400);
      assert.equal((await call('POST', `${S}/lim-pull:acknowledge`, { ackIds: [] })).status, 400);
      assert.equal((await call('POST', `${S}/lim-pull:acknowledge`, { ackIds: ['garbage'] })).status, 400);
      const mod = (s: number) =>
        call('POST', `${S}/lim-pull:modifyAckDeadline`, { ackIds: ['1-1'], ackDeadlineSeconds: s });
      assert.equal((await mod(600)).status, 200);
      assert.equal((await mod(601)).status, 400);
    });
  });
});
