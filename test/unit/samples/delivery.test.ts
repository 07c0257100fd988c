/**
 * core/samples/delivery.ts through the draft: a vendor's delivery metadata (attempt counters,
 * delivery times and ids, a signature in the body) is recognised, kept out of the drafted event,
 * and the vendor's own id (or its object's id and change) becomes the translator's key. Each shape
 * is then sent as the vendor would send it again, through the drafted translator and the event's
 * normalisation, and the copies must have ONE identity (event_id and identity digest, the pair
 * `store` claims: core/identity.ts). test/e2e/send-once.test.ts runs the same shapes end to end.
 */
import assert from 'node:assert/strict';
import { definedEvent, definedEvents } from '../../../core/definitions/defined-events.ts';
import { normalizeEvent } from '../../../core/event.ts';
import { identityDigest } from '../../../core/identity.ts';
import { applyViolations } from '../../../core/registry/resources.ts';
import { deliveryColumns, envelopeEventId, vendorKey } from '../../../core/samples/delivery.ts';
import { draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { translate } from '../../../core/translate/index.ts';
import { CREATOR_NOW, CREATOR_OPTIONS, CREATOR_WINDOW } from '../../support/creator-clock.ts';

const options = CREATOR_OPTIONS;
const NOW = CREATOR_NOW;
const window = CREATOR_WINDOW;

/** Drafts from `sample` taking every guess, as a person who changes nothing would. */
function drafted(sample: object) {
  const text = JSON.stringify(sample);
  const parsed = parseSample(text);
  const fields = inferFields(parsed);
  const guesses = guessChoices(fields, parsed.rows, { window });
  const draft = draftResources({
    eventName: 'payment_received',
    translatorName: 'vendor-json',
    sample: parsed,
    fields,
    choices: guesses.columns,
  });
  assert.deepEqual(applyViolations([draft.definition, draft.translator] as never, { connections: [] }), []);
  return draft;
}

/** One delivery through the drafted translator: its event's identity as `store` claims it. */
function identity(draft: ReturnType<typeof drafted>, body: object, receivedAt: number) {
  const r = translate({
    translator: 'vendor-json',
    spec: draft.translator.spec,
    eventName: 'payment_received',
    body: new TextEncoder().encode(JSON.stringify(body)),
    contentType: 'application/json',
  });
  assert.ok(r.ok && r.problems.length === 0, JSON.stringify(r));
  const defined = definedEvents([definedEvent('payment_received', '0.0', draft.definition.spec as never)]);
  const n = normalizeEvent(r.rows[0]?.event as never, {
    options,
    now: receivedAt,
    newId: () => 'minted',
    defined,
  });
  assert.ok(n.ok, JSON.stringify(!n.ok && n.violations));
  return {
    event_id: n.event.event_id,
    digest: identityDigest(n.event as never, n.serverFields),
    data: n.event.event_data as Record<string, unknown>,
  };
}

const payment = {
  id: 'pay_3QzT8k2eZvKYlo2C',
  amount: 4990,
  currency: 'eur',
  status: 'succeeded',
  created: 1_764_000_000,
  customer_email: 'ada@example.com',
};

describe('the creator: a vendor’s delivery is not the event', () => {
  it('attempt-counter retry → one row, one delivery: the counter and the attempt’s time are left out', () => {
    const first = {
      event_id: 'evt_7gHk2LmN',
      type: 'payment.succeeded',
      attempt_number: 1,
      delivery_attempts: 1,
      sent_at: '2026-11-23T11:59:00Z',
      data: payment,
    };
    const draft = drafted(first);
    const left = draft.identity.left.map((d) => `${d.column}:${d.kind}`);
    assert.deepEqual(left.sort(), [
      'attempt_number:attempt',
      'delivery_attempts:attempt',
      'sent_at:delivery_time',
    ]);
    assert.deepEqual(draft.translator.spec.key, ['event_id']);
    const sources = draft.translator.spec.fields.map((f) => ('source' in f ? f.source : undefined));
    for (const c of ['attempt_number', 'delivery_attempts', 'sent_at']) assert.ok(!sources.includes(c), c);
    // The vendor retries an hour later: another attempt number, another send time, same event.
    const retry = { ...first, attempt_number: 2, delivery_attempts: 2, sent_at: '2026-11-23T12:59:00Z' };
    const a = identity(draft, first, NOW);
    const b = identity(draft, retry, NOW + 3_600_000);
    assert.deepEqual(b, a);
    // Another event of the vendor's is another identity.
    const other = identity(draft, { ...first, event_id: 'evt_other' }, NOW);
    assert.notEqual(other.event_id, a.event_id);
  });

  it('a delivery id in the envelope is not the event’s id, nor is a signature in the body', () => {
    const first = {
      id: 'evt_1',
      event: 'payment.captured',
      delivery: { id: 'dlv_a1', attempt: 1 },
      signature: { timestamp: '1764000000', token: 'c2e1f7', signature: 'a3f0e9c1' },
      data: payment,
    };
    const draft = drafted(first);
    const kinds = Object.fromEntries(draft.identity.left.map((d) => [d.column, d.kind]));
    assert.equal(kinds['delivery.id'], 'delivery_id');
    assert.equal(kinds['delivery.attempt'], 'attempt');
    assert.equal(kinds['signature.signature'], 'signature');
    assert.equal(kinds['signature.token'], 'signature');
    // The envelope's own `id` is the event's id: guessed as its event_id (a key once a payload
    // time is the event time; else the event_id field), never the delivery's id.
    const spec = draft.translator.spec;
    const idFrom =
      spec.key ?? spec.fields.flatMap((f) => (f.target === 'event_id' && 'source' in f ? [f.source] : []));
    assert.deepEqual(idFrom, ['id']);
    const retry = {
      ...first,
      delivery: { id: 'dlv_b2', attempt: 2 },
      signature: { timestamp: '1764003600', token: '9d0b44', signature: '77be0c12' },
    };
    assert.deepEqual(identity(draft, retry, NOW + 60_000), identity(draft, first, NOW));
  });

  it('two webhooks for one payment → one: no envelope id, the object’s id and change are the key', () => {
    // Two webhooks a vendor sent about the same capture (two subscriptions, or a re-send), each
    // with its own send time; the payment, its status and its change are the same.
    const envelope = (sentAt: string) => ({
      entity: 'event',
      event: 'payment.captured',
      sent_at: sentAt,
      payload: { payment: { entity: { ...payment, status: 'captured' } } },
    });
    const draft = drafted(envelope('2026-11-23T11:59:00Z'));
    assert.deepEqual(draft.translator.spec.key, [
      'payload.payment.entity.id',
      'event',
      'payload.payment.entity.status',
    ]);
    assert.match(draft.identity.key?.why ?? '', /names no event id of its own/);
    const a = identity(draft, envelope('2026-11-23T11:59:00Z'), NOW);
    const b = identity(draft, envelope('2026-11-23T11:59:07Z'), NOW + 7_000);
    assert.deepEqual(b, a);
    // The same payment refunded later is another event.
    const refunded = {
      ...envelope('2026-11-23T13:00:00Z'),
      event: 'payment.refunded',
      payload: { payment: { entity: { ...payment, status: 'refunded' } } },
    };
    assert.notEqual(identity(draft, refunded, NOW).event_id, a.event_id);
  });

  it('needs the value’s shape as well as the name, and never keys on an object’s id alone', () => {
    const sample = parseSample(
      JSON.stringify([
        { quiz: 'q1', attempts: 'three', signature: true, sent_at: 'yesterday', customer: { id: 'c1' } },
        { quiz: 'q2', attempts: 'four', signature: false, sent_at: 'today', customer: { id: 'c1' } },
      ]),
    );
    const fields = inferFields(sample);
    assert.deepEqual(deliveryColumns(fields), []);
    // customer.id with no change beside it: every later change would fold into the first.
    assert.equal(vendorKey(sample, fields), undefined);
  });

  it('a message id beside the envelope’s attempt counter is the delivery’s: never the event id', () => {
    const body = (tries: number) => ({
      messageId: 'c0101a21',
      deliveryTries: tries,
      event: { answered: { responseUuid: '3fa85f64', timestamp: new Date(NOW - 60_000).toISOString() } },
    });
    const fields = inferFields(parseSample(JSON.stringify(body(0))));
    const kinds = Object.fromEntries(deliveryColumns(fields).map((d) => [d.column, d.kind]));
    assert.deepEqual(kinds, { deliveryTries: 'attempt', messageId: 'delivery_id' });
    const parsed = parseSample(JSON.stringify(body(0)));
    const g = guessChoices(inferFields(parsed), parsed.rows, { window });
    assert.equal(g.columns.find((c) => c.column === 'messageId')?.target, 'event_data');
    assert.match(g.columns.find((c) => c.column === 'messageId')?.why ?? '', /attempt counter deliveryTries/);
    // Without a counter beside it, a message id at the top is the event's (a message's own webhook).
    const alone = inferFields(parseSample(JSON.stringify({ messageId: 'm1', event: { status: 'sent' } })));
    assert.deepEqual(deliveryColumns(alone), []);
  });

  it('takes a token’s jti, a tracker’s eid or a message’s own id at the top as the vendor’s event id', () => {
    const top = (body: object) => {
      const parsed = parseSample(JSON.stringify(body));
      return envelopeEventId(parsed.rows, inferFields(parsed));
    };
    assert.equal(
      top({ jti: '051f0c37-b689', iss: 'https://idp.example', events: { login: { at: 1 } } }),
      'jti',
    );
    assert.equal(top({ eid: '5a305bf5-32fc', event: 'page_view' }), 'eid');
    assert.equal(top({ idMessage: '3EB063C771F2', typeWebhook: 'outgoingMessageReceived' }), 'idMessage');
    // Beside an attempt counter, a message id is the delivery's, never the event's.
    assert.equal(top({ messageId: 'c0101a21', deliveryTries: 1, event: { x: { y: 'z' } } }), undefined);
  });

  it('a delivery id the person chose as the event id is still left out, and the vendor’s id keys instead', () => {
    const text = JSON.stringify({
      id: 'evt_9',
      delivery_id: 'dlv_1',
      type: 'payment.succeeded',
      data: payment,
    });
    const sample = parseSample(text);
    const fields = inferFields(sample);
    const draft = draftResources({
      eventName: 'payment_received',
      translatorName: 'vendor-json',
      sample,
      fields,
      choices: [
        { column: 'delivery_id', target: 'event_id' },
        { column: 'data.amount', target: 'event_data', field: 'amount' },
      ],
    });
    assert.deepEqual(draft.translator.spec.key, ['id']);
    assert.deepEqual(
      draft.identity.left.map((d) => d.column),
      ['delivery_id'],
    );
  });
});
