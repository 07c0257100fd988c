/**
 * The rules of core/samples/step-time.ts one by one (docs/testing.md, its mutation run): which
 * columns say the step a payload reports (each of their names, at the top or under envelopes
 * only, in every row), and which names make a time the step's own (the step's word, then only
 * words of a time).
 */
import assert from 'node:assert/strict';
import { inferFields, parseSample } from '../../../core/samples/index.ts';
import { reportedSteps, stepTimeOf } from '../../../core/samples/step-time.ts';

/** The steps a list of JSON rows reports. */
function stepsOf(rows: readonly Record<string, unknown>[]): readonly string[] {
  const sample = parseSample(JSON.stringify(rows));
  return reportedSteps(inferFields(sample), sample.rows);
}
const time = (name: string) =>
  ({ name, type: 'timestamp', examples: [], distinct: 1, nullable: false }) as never;

describe('creator: the step a payload reports, rule by rule', () => {
  it('reads the step from each name a status or type column has', () => {
    for (const name of ['status', 'state', 'type', 'event', 'eventType', 'event_name', 'action', 'topic'])
      assert.deepEqual(stepsOf([{ id: 'inv_1', [name]: 'invoice.paid' }]), ['paid'], name);
    assert.deepEqual(stepsOf([{ id: 'inv_1', note: 'invoice.paid' }]), [], 'a column of another name');
  });

  it('reads a status under envelopes only, and not inside another object', () => {
    assert.deepEqual(stepsOf([{ data: { object: { status: 'REFUNDED' } } }]), ['refund']);
    assert.deepEqual(stepsOf([{ data: { charge: { status: 'REFUNDED' } } }]), []);
  });

  it('needs the step in every row, and rows to read it from', () => {
    assert.deepEqual(stepsOf([{ status: 'paid' }, { status: null }]), []);
    assert.deepEqual(stepsOf([{ status: 'paid' }, { status: 'PAYMENT_PAID' }]), ['paid']);
    const fields = inferFields(
      parseSample(JSON.stringify({ status: 'paid', paid_at: '2022-08-07T18:58:04Z' })),
    );
    assert.deepEqual(reportedSteps(fields, []), []);
  });

  it('takes a time as the step’s only when its name is the step then words of a time', () => {
    for (const name of [
      'paid_at',
      'paidOn',
      'paid_date',
      'paid_time',
      'paid_timestamp',
      'paid_ts',
      'paid_at_date',
    ])
      assert.equal(stepTimeOf(time(name), ['paid']), 'paid', name);
    assert.equal(stepTimeOf(time('data.refunded_at'), ['refund']), 'refund');
    assert.equal(stepTimeOf(time('paid'), ['paid']), undefined, 'the step’s word alone');
    assert.equal(stepTimeOf(time('paid_flat'), ['paid']), undefined, 'a word that only ends as a time word');
    assert.equal(stepTimeOf(time('paid_attempts'), ['paid']), undefined, 'a word that only starts as one');
    assert.equal(stepTimeOf(time('last_paid_at'), ['paid']), undefined, 'the step not first');
  });
});
