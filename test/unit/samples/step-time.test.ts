/**
 * The time of the step an event reports (issue #94, core/samples/step-time.ts and its use in
 * guess.ts): a time named for the step the payload's own status or type says happened (`paid_at`
 * when the status is PAID) is the event's time, over the record's `created`; without that word in
 * the payload, creation stays first.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { reportedSteps, stepTimeOf } from '../../../core/samples/step-time.ts';

function timeOf(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows).eventTime;
}
/** An invoice made at 18:56 and paid at 18:58 (times as a payment gateway's callback writes them). */
const at = (minute: number) => `2022-08-07T18:${minute}:04.761Z`;
const invoice = { id: 'inv_1', created: at(56), paid_at: at(58), updated: at(59) };

describe('creator: the time of the step an event reports', () => {
  it('takes the paid time when the payload says it is paid, saying why', () => {
    const t = timeOf({ ...invoice, status: 'PAID' });
    assert.equal(t.column, 'paid_at');
    assert.match(t.why, /names the step the payload reports \(paid\)/);
    assert.equal(
      timeOf({ data: { ...invoice, status: 'paid' }, type: 'invoice.paid' }).column,
      'data.paid_at',
    );
  });

  it('takes no step time when nothing in the payload names the step', () => {
    // Not the paid time: the record's own times decide, its last change over its creation
    // (last-change-time.ts), and its creation where it has no later change.
    assert.equal(timeOf({ ...invoice, status: 'PENDING' }).column, 'updated');
    assert.equal(timeOf(invoice).column, 'updated');
    assert.equal(timeOf({ ...invoice, updated: at(56) }).column, 'created');
  });

  it('reads the step only from the payload’s own status or type, in every row, and the time only by its name', () => {
    const fields = inferFields(parseSample(JSON.stringify({ status: 'REFUNDED', note: { status: 'paid' } })));
    assert.deepEqual(reportedSteps(fields, [{ status: 'REFUNDED', 'note.status': 'paid' }]), ['refund']);
    assert.deepEqual(reportedSteps(fields, [{ status: 'REFUNDED' }, { status: 'open' }]), []);
    const f = (name: string) =>
      ({ name, type: 'timestamp', examples: [], distinct: 1, nullable: false }) as never;
    assert.equal(stepTimeOf(f('refunded_at'), ['refund']), 'refund');
    assert.equal(stepTimeOf(f('refund_policy_at'), ['refund']), undefined);
    assert.equal(stepTimeOf(f('paid_at'), ['refund']), undefined);
  });
});
