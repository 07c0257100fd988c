/**
 * Idempotency-Key on a translator (#33, gateway/idempotency.ts): a retry with the same key and
 * body publishes the same event ids; the same key with another body is refused with 422 naming the
 * key where the gateway remembers it, and where it cannot (another instance, a restart) the other
 * body gets other event ids, so it is stored and delivered as other events rather than folded
 * into the first ones by the warehouse while the webhook gets both.
 */
import assert from 'node:assert/strict';
import type { TranslatorEntry } from '../../adapters/definitions.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { type Answer, FakePublisher, reasonOf, startTestGateway, type TestGateway } from './support.ts';

const ENTRY: TranslatorEntry = {
  name: 'orders-json',
  version: '1.0',
  spec: {
    event: 'purchase',
    format: { type: 'json' },
    fields: [
      { target: 'transaction_id', source: 'id' },
      { target: 'value', source: 'total' },
      { target: 'currency', source: 'currency' },
    ],
  } as TranslatorSpec,
};

const order = (id: string, total: number) => JSON.stringify({ id, total, currency: 'EUR' });

describe('gateway: Idempotency-Key on translators', () => {
  const start = (pub: FakePublisher) =>
    startTestGateway({
      publisher: pub,
      translators: { get: async (n) => (n === ENTRY.name ? ENTRY : undefined) },
    });
  let g: TestGateway;
  let pub: FakePublisher;
  let token = '';
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await start(pub);
    token = await g.mint([`translate:${ENTRY.name}`]);
  });
  afterEach(() => g.close());

  const send = (gw: TestGateway, body: string, key: string) =>
    fetch(`${gw.url}/v1/translators/${ENTRY.name}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body,
    });
  const eventIds = (p: FakePublisher) =>
    p.calls.flatMap((c) => c.messages.map((m) => m.attributes['event_id'] as string));

  it('publishes a retry (same key, same body) under the same event ids', async () => {
    assert.equal((await send(g, order('A-1', 15), 'k-1')).status, 200);
    assert.equal((await send(g, order('A-1', 15), 'k-1')).status, 200);
    const ids = eventIds(pub);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);
  });

  it('refuses the same key with another body with 422 naming the key, and publishes nothing for it', async () => {
    assert.equal((await send(g, order('A-1', 15), 'k-2')).status, 200);
    const again = await send(g, order('A-2', 99), 'k-2');
    assert.equal(again.status, 422);
    const body = (await again.json()) as Answer['body'] & { error: { message: string; status: string } };
    assert.equal(reasonOf({ status: 422, headers: again.headers, body }), 'IDEMPOTENCY_KEY_REUSED');
    assert.match(body.error.message, /"k-2"/);
    assert.equal(body.error.status, 'FAILED_PRECONDITION');
    assert.equal(eventIds(pub).length, 1);
  });

  it('gives another body under the same key other event ids where the memory cannot see it (another instance)', async () => {
    assert.equal((await send(g, order('A-1', 15), 'k-3')).status, 200);
    const otherPub = new FakePublisher();
    const other = await start(otherPub);
    try {
      token = await other.mint([`translate:${ENTRY.name}`]);
      assert.equal((await send(other, order('A-2', 99), 'k-3')).status, 200);
      assert.notEqual(eventIds(otherPub)[0], eventIds(pub)[0]);
    } finally {
      await other.close();
    }
  });
});
