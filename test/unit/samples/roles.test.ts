/**
 * The creator's roles, evidence and questions (issue #80) on payloads shaped as PayPal, Twilio
 * and Intercom document them (test/fixtures/sources/creator/SOURCES.md): the value from the sale's
 * total and never a fee, the payer's phone and never the receiving number, a nested e-mail as
 * the person's, a version never the event time, the page asked where two readings compete, and
 * a draft the registry takes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { normalizeOptions } from '../../../core/event.ts';
import { applyViolations } from '../../../core/registry/resources.ts';
import { draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample, type TimeWindow } from '../../../core/samples/index.ts';
import { eventFieldProblem } from '../../../core/translate/spec.ts';

const options = normalizeOptions({ name: 't', project: 't', region: 'europe-west1' } as never);
const window: TimeWindow = {
  now: Date.parse('2026-11-23T12:00:00Z'),
  pastMs: options.eventTimePastMs,
  futureMs: options.eventTimeFutureMs,
};

function guess(file: string) {
  const text = readFileSync(new URL(`../../fixtures/sources/creator/${file}`, import.meta.url), 'utf8');
  const sample = parseSample(text);
  const fields = inferFields(sample);
  const g = guessChoices(fields, sample.rows, { window });
  const at = (column: string) => {
    const c = g.columns.find((x) => x.column === column);
    assert.ok(c, `a guess for ${column}`);
    return c;
  };
  const draft = draftResources({
    eventName: g.eventName?.name ?? 'sample_received',
    translatorName: 'sample',
    sample,
    fields,
    choices: g.columns,
  });
  const refused = applyViolations([draft.definition, draft.translator] as never, { connections: [] });
  return { g, at, refused };
}

describe('the creator’s roles and questions', () => {
  it('PayPal sale: the value is the sale total, never transaction_fee.value; state is no region', () => {
    const { g, at, refused } = guess('paypal-sale-completed.synthetic.json');
    assert.equal(g.value?.column, 'resource.amount.total');
    assert.notEqual(at('resource.transaction_fee.value').field, 'value');
    assert.match(at('resource.transaction_fee.value').why, /"fee" says it is not the value/);
    assert.equal(at('resource.state').target, 'event_data');
    assert.match(at('resource.state').why, /status, not a region/);
    assert.ok(!g.columns.some((c) => c.target === 'user.region'));
    const q = g.questions.find((x) => x.field === 'value');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['resource.amount.total', 'resource.transaction_fee.value'],
      'total vs fee is asked, the total first',
    );
    assert.ok(at('resource.amount.total').confidence <= 0.6, 'an asked guess is no certainty');
    assert.deepEqual(refused, []);
  });

  it('PayPal capture: the payer’s e-mail, never the payee’s, and the page asks', () => {
    const { g, at, refused } = guess('paypal-capture-completed.synthetic.json');
    assert.equal(g.value?.column, 'resource.amount.value');
    assert.equal(at('resource.payer.email_address').target, 'user.email');
    assert.equal(at('resource.payer.email_address').personal, true);
    assert.equal(at('resource.payee.email_address').target, 'event_data');
    assert.match(at('resource.payee.email_address').why, /inside payee: the business's/);
    const q = g.questions.find((x) => x.target === 'user.email');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['resource.payer.email_address', 'resource.payee.email_address'],
    );
    assert.ok(
      g.questions.some((x) => x.field === 'value'),
      'paypal_fee.value vs amount.value is asked',
    );
    assert.deepEqual(refused, []);
  });

  it('Twilio SMS: the payer’s phone is From, never To; From’s place; ApiVersion never the time', () => {
    const { g, at, refused } = guess('twilio-sms-received.synthetic.form');
    assert.equal(at('From').target, 'user.phone');
    assert.equal(at('To').target, 'event_data');
    assert.equal(at('FromCountry').target, 'user.country');
    assert.equal(at('FromState').target, 'user.region');
    assert.equal(at('FromCity').target, 'user.city');
    for (const c of ['ToCountry', 'ToState', 'ToCity', 'ToZip'])
      assert.ok(!at(c).target.startsWith('user'), `${c} is the business's`);
    assert.equal(g.eventTime.column, undefined, 'no column is the event time');
    assert.equal(g.eventTime.outside, undefined, 'nor asked about as one');
    assert.match(g.eventTime.why, /ApiVersion is not a time: its name says it is a version/);
    assert.equal(at('ApiVersion').target, 'event_data');
    const q = g.questions.find((x) => x.target === 'user.phone');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['From', 'To'],
      'from vs to is asked, From first',
    );
    assert.match(at('From').evidence.type, /phone/);
    assert.match(at('To').evidence.position, /receiving side/);
    assert.deepEqual(refused, []);
  });

  it('Intercom: the nested data.item.email is user.email, personal; topic names the event', () => {
    const { g, at, refused } = guess('intercom-user-created.synthetic.json');
    assert.equal(at('data.item.email').target, 'user.email');
    assert.equal(at('data.item.email').personal, true);
    assert.match(at('data.item.email').evidence.position, /type is "user": the person's/);
    assert.equal(g.eventName?.name, 'user_created');
    assert.equal(at('topic').field, 'topic_data', 'never a name the save refuses');
    assert.equal(eventFieldProblem('topic_data'), undefined);
    assert.deepEqual(refused, []);
  });

  it('every guess carries its evidence and a confidence', () => {
    for (const file of [
      'paypal-sale-completed.synthetic.json',
      'twilio-sms-received.synthetic.form',
      'intercom-user-created.synthetic.json',
    ])
      for (const c of guess(file).g.columns) {
        assert.ok(c.confidence > 0 && c.confidence <= 1, `${file} ${c.column}`);
        for (const part of ['name', 'type', 'shape', 'position'] as const) assert.ok(c.evidence[part] !== '');
      }
  });

  it('a constant date across rows is never the event time', () => {
    const text = 'api_version,sent_at\n2010-04-01,2026-11-20T10:00:00Z\n2010-04-01,2026-11-21T10:00:00Z\n';
    const sample = parseSample(text);
    const g = guessChoices(inferFields(sample), sample.rows, { window });
    assert.equal(g.eventTime.column, 'sent_at');
    const one = 'published,x\n2020-01-01,1\n2020-01-01,2\n2020-01-01,3\n';
    const s2 = parseSample(one);
    const g2 = guessChoices(inferFields(s2), s2.rows, { window });
    assert.equal(g2.eventTime.column, undefined);
    assert.match(g2.eventTime.why, /same value in all 3 rows/);
    // Two events may share a time (a vendor's documented examples often do): not a constant.
    const two = parseSample('created_at,x\n2026-11-20T10:00:00Z,1\n2026-11-20T10:00:00Z,2\n');
    assert.equal(guessChoices(inferFields(two), two.rows, { window }).eventTime.column, 'created_at');
  });

  it('the page’s field-name check is the save’s: reserved names and the name rule', () => {
    assert.match(eventFieldProblem('topic') ?? '', /column of the warehouse/);
    assert.match(eventFieldProblem('received_at') ?? '', /column of the warehouse/);
    assert.match(eventFieldProblem('Topic') ?? '', /must match/);
    assert.equal(eventFieldProblem('order_total'), undefined);
  });
});
