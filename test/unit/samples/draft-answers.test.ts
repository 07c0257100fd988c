/**
 * The person's answer to an event-id question is the saved definition's (issue #94,
 * core/samples/draft.ts `answerQuestion`, `retarget`): a column chosen as the event's id is the
 * key; a column the person said is not the event's own id is never the key, not by the vendor's
 * own id (`envelopeEventId`) nor by the object's id with its change; with nothing left the draft
 * says each row's id comes from the request body's digest. For the three questions that ask it:
 * which column is the event's own id (own-id.ts), an envelope's id above a batch
 * (batch-envelope.ts), an id beside what the delivery was sent to (own-id.ts).
 */
import assert from 'node:assert/strict';
import { answerQuestion, type Draft, draftResources, NONE, retarget } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

/** The sample read and guessed, its event-id question, and a draft from any choices. */
function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  const guesses = guessChoices(fields, sample.rows);
  const question = guesses.questions.find((q) => q.target === 'event_id');
  assert.ok(question, 'the sample asks about the event’s id');
  const choices = guesses.columns.map((c) => ({
    column: c.column,
    target: c.target,
    ...(c.field ? { field: c.field } : {}),
  }));
  const draft = (picked: string) =>
    draftResources({
      eventName: 'thing_happened',
      translatorName: 'thing-happened-json',
      sample,
      fields,
      choices: answerQuestion(question, picked, choices),
    });
  return { question, choices, draft };
}

/** The columns a draft's rows take their event id from: the translator's key, or its event_id field. */
const keyOf = (d: Draft): string[] => {
  const spec = d.translator.spec;
  return spec.key
    ? spec.key.flatMap((k) => [k].flat())
    : spec.fields.flatMap((f) => (f.target === 'event_id' && f.source ? [f.source].flat() : []));
};

/** Every answer of the question: each option is the key, and no answer makes none of them the key. */
function obeys(body: unknown, options: readonly string[]) {
  const { question, draft } = read(body);
  assert.deepEqual(
    question.options.map((o) => o.column),
    options,
  );
  for (const column of options) {
    const yes = draft(column);
    assert.deepEqual(keyOf(yes), [column], `answered ${column}`);
    assert.equal(yes.identity.digest, undefined);
  }
  const no = draft(NONE);
  for (const column of options) assert.ok(!keyOf(no).includes(column), `answered no: ${column} is no key`);
  return no;
}

describe('creator: the person’s answer to an event-id question is the key', () => {
  it('which column is the event’s own id: none of these leaves the payload’s own id out of the key', () => {
    const no = obeys(
      {
        id: 206,
        eventId: 98146,
        email: 'jane@example.com',
        eventData: { name: 'Weekly call', location: 'online' },
      },
      ['id', 'eventId'],
    );
    assert.deepEqual(keyOf(no), []);
    assert.equal(no.identity.key, undefined);
    assert.match(
      no.identity.digest ?? '',
      /you said id, eventId are not\): each row's event id is made from the request body's digest/,
    );
  });

  it('a batch’s envelope id: no leaves it out of the key', () => {
    const no = obeys(
      { id: 'b-77', data: { received: 2, events: [{ type: 'opened' }, { type: 'clicked' }] } },
      ['id'],
    );
    assert.deepEqual(keyOf(no), []);
    assert.match(no.identity.digest ?? '', /you said id is not/);
    // Kept as an event field, as the answer says.
    assert.ok(no.translator.spec.fields.some((f) => f.source === 'id' && f.target === 'id'));
  });

  it('an id beside what the delivery was sent to: no leaves it, and the record named, out of the key', () => {
    const no = obeys(
      {
        subscriptionId: '692597070fe21cfa5e6a010f',
        eventId: '692597070fe21cfa5e6a010a',
        eventType: 'booking.created',
        identifiers: { bookingId: '507f1f77bcf86cd799439011' },
      },
      ['eventId', 'identifiers.bookingId'],
    );
    assert.deepEqual(keyOf(no), []);
    assert.ok(no.identity.digest);
  });

  it('a refused column leaves the object’s id and change to be the key, where the payload has them', () => {
    const { draft } = read({
      id: 'b-77',
      type: 'payment.captured',
      data: { id: 'pay_1', status: 'captured', events: [{ type: 'opened' }] },
    });
    assert.deepEqual(keyOf(draft(NONE)), ['data.id', 'type', 'data.status']);
  });

  it('moving a column off event_id refuses it; choosing it again takes that back', () => {
    const { choices } = read({
      id: 'b-77',
      type: 'batch.received',
      data: { received: 2, events: [{ type: 'opened' }] },
    });
    const at = choices.findIndex((c) => c.column === 'id');
    const off = retarget(choices[at] as (typeof choices)[number], 'event_data');
    assert.equal(off.notEventId, true);
    assert.equal(retarget(off, 'skip').notEventId, true);
    assert.equal(retarget(off, 'event_id').notEventId, undefined);
    // A column never taken as the event's id is not refused by another target.
    assert.equal(retarget({ column: 'x', target: 'event_data' }, 'skip').notEventId, undefined);
  });
});
