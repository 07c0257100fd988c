/**
 * A caller's request reference is not the event's id (core/samples/request-ref.ts, issue #94):
 * an `idempotency_key`, `request_id` or `reference_id` is never filled as the event's id without
 * asking, wherever it sits; when nothing else is the event's id the page asks, a better
 * candidate preselected, the reference only when there is none.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { requestReference } from '../../../core/samples/request-ref.ts';

/** The guesses for JSON rows, as the page makes them. */
function guess(rows: readonly object[]) {
  const sample = parseSample(JSON.stringify(rows));
  return guessChoices(inferFields(sample), sample.rows);
}
const targetOf = (g: ReturnType<typeof guess>, name: string) =>
  g.columns.find((c) => c.column === name)?.target;
const idQuestion = (g: ReturnType<typeof guess>) => g.questions.find((q) => q.target === 'event_id');

describe('creator: a caller’s request reference is not the event’s id', () => {
  it('names a caller’s key for a request by its words, written any way', () => {
    for (const name of [
      'idempotency_key',
      'idempotencyKey',
      'request.idempotency_key',
      'request_id',
      'requestId',
      'reference_id',
      'client_reference_id',
      'correlation_id',
      'client_reference',
    ])
      assert.ok(requestReference(name), name);
    for (const name of ['id', 'event_id', 'verification_id', 'payment_reference', 'key', 'reference_number'])
      assert.equal(requestReference(name), undefined, name);
  });

  it('never fills a top-level idempotency_key as the event’s id: the payload’s own id is', () => {
    const g = guess([
      { id: 'evt_1', idempotency_key: 'k1', status: 'ok' },
      { id: 'evt_2', idempotency_key: 'k2', status: 'ok' },
    ]);
    assert.equal(targetOf(g, 'idempotency_key'), 'event_data');
    assert.equal(targetOf(g, 'id'), 'event_id');
    assert.equal(idQuestion(g), undefined, 'the own id needs no question');
  });

  it('keeps a reference inside another object (request.idempotency_key) by the same rule', () => {
    const g = guess([{ id: 'evt_1', type: 'charge.succeeded', request: { idempotency_key: 'k1' } }]);
    const key = g.columns.find((c) => c.column === 'request.idempotency_key');
    assert.equal(key?.target, 'event_data');
    assert.match(key?.why ?? '', /caller's reference for the request/);
  });

  it('asks when nothing else is the event’s id, preselecting the record the event’s type names', () => {
    const g = guess([
      {
        verification_id: '3c90c3cc-0d44-4b50-8888-8dd25736052a',
        __event__: { type: 'Verification.updated' },
        idempotency_key: 'k1',
        status: 'FAILED',
      },
    ]);
    const q = idQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['verification_id', 'idempotency_key'],
    );
    assert.equal(targetOf(g, 'verification_id'), 'event_id');
    assert.equal(targetOf(g, 'idempotency_key'), 'event_data');
  });

  it('asks with the reference preselected, alone, when no other column can be the event’s id', () => {
    const g = guess([{ idempotency_key: 'k1', status: 'ok', amount_note: 'none' }]);
    const q = idQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['idempotency_key'],
    );
    assert.match(q?.options[0]?.why ?? '', /no other column is an id of the event/);
    assert.equal(targetOf(g, 'idempotency_key'), 'event_id');
  });

  it('offers the id of the object the payload is about before a top-level reference', () => {
    const g = guess([{ idempotency_key: 'k1', data: { id: 'pay_1', status: 'ok' } }]);
    assert.deepEqual(
      idQuestion(g)?.options.map((o) => o.column),
      ['data.id', 'idempotency_key'],
    );
    // Nothing names an event: the record's own id is offered, not preselected (record-status.ts).
    assert.ok(idQuestion(g)?.noneGuessed);
    assert.equal(targetOf(g, 'idempotency_key'), 'event_data');
    const typed = guess([{ idempotency_key: 'k1', type: 'payment.ok', data: { id: 'pay_1', status: 'ok' } }]);
    assert.equal(targetOf(typed, 'data.id'), 'event_id');
  });

  it('asks nothing of a reference inside another object: that object’s, kept as a field', () => {
    const g = guess([{ payment: { idempotency_key: 'k1', id: 'pay_1', status: 'ok' } }]);
    // The payment's own id may be asked about (record-id.ts); the reference never is.
    assert.ok(!g.questions.some((q) => q.options.some((o) => o.column === 'payment.idempotency_key')));
    assert.equal(targetOf(g, 'payment.idempotency_key'), 'event_data');
  });

  it('asks nothing of a reference that was never named like the event’s id', () => {
    const g = guess([{ order: 'o1', reference_id: 'r1', status: 'ok' }]);
    assert.equal(idQuestion(g), undefined);
    assert.equal(targetOf(g, 'reference_id'), 'event_data');
  });
});
