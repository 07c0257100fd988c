/**
 * The rules of core/samples/actor.ts one by one (docs/testing.md, its mutation run): each word
 * that names whoever acted, each name of a payload's subject and of its kind, which user ids are
 * bare, and what the questions and the rewritten guesses say.
 */
import assert from 'node:assert/strict';
import {
  actorOf,
  actorQuestions,
  actorRefusal,
  recordNamedByType,
  subjectOf,
} from '../../../core/samples/actor.ts';
import { inferFields, parseSample } from '../../../core/samples/index.ts';

const fieldsOf = (body: unknown) => inferFields(parseSample(JSON.stringify(body)));

/** The actor questions of a payload whose columns `targets` guessed as the person's, the rest event fields. */
function ask(body: unknown, targets: Record<string, string>) {
  const fields = fieldsOf(body);
  const base: { column: string; target: string; field?: string; why: string }[] = fields.map((f) => ({
    column: f.name,
    target: targets[f.name] ?? 'event_data',
    why: 'as guessed',
  }));
  return { questions: actorQuestions(fields, base), base };
}
const guessOf = (r: ReturnType<typeof ask>, column: string) => r.base.find((g) => g.column === column);

describe('creator: an actor beside the subject, rule by rule', () => {
  it('reads each word of whoever acted, and each step only followed by `by`', () => {
    const words: Record<string, string> = {
      acting_user_id: 'acting',
      'performer.email': 'performer',
      executor_id: 'executor',
      executed_by: 'executed by',
      initiatedBy: 'initiated by',
      made_by_user_id: 'made by',
      done_by: 'done by',
    };
    for (const [column, word] of Object.entries(words)) assert.equal(actorOf(column)?.word, word, column);
    for (const column of ['performed_at', 'executed_steps', 'changed_fields', 'sort_by', 'group_by'])
      assert.equal(actorOf(column), undefined, column);
    // The nearest part of the path says it.
    assert.deepEqual(actorOf('actor.initiating_user_id'), {
      word: 'initiating',
      segment: 'initiating_user_id',
    });
  });

  it('reads each subject word before an id word, and the id of a subject, target or entity object', () => {
    for (const column of ['subject_id', 'target_uuid', 'resource_guid', 'object_id', 'EntityId', 'record_id'])
      assert.equal(subjectOf(fieldsOf({ [column]: 'con_9', action: 'updated' }))?.id, column, column);
    assert.equal(subjectOf(fieldsOf({ entity_ids: 'cus_81' }))?.id, 'entity_ids');
    assert.equal(subjectOf(fieldsOf({ entity_id: 81 }))?.id, 'entity_id');
    for (const object of ['subject', 'target', 'entity'])
      assert.equal(subjectOf(fieldsOf({ [object]: { id: 'con_9' } }))?.id, `${object}.id`, object);
    // The owner of a record, a list of targets: no subject.
    for (const none of [{ record_owner_id: 'usr_1' }, { target_ids: ['con_9', 'con_10'] }])
      assert.equal(subjectOf(fieldsOf(none)), undefined, JSON.stringify(none));
  });

  it('reads the subject’s kind beside its id: a kind word for the id word, one value written as text', () => {
    for (const kind of [
      'entity_type',
      'entity_kind',
      'entity_name',
      'entity_logical_name',
      'EntityLogicalName',
    ])
      assert.deepEqual(
        subjectOf(fieldsOf({ entity_id: 'con_9', [kind]: 'contact' }))?.kind,
        { column: kind, value: 'contact' },
        kind,
      );
    const rows = [
      { entity_id: 'con_9', entity_type: 'contact' },
      { entity_id: 'inv_2', entity_type: 'invoice' },
    ];
    for (const [what, fields] of [
      ['in another object', fieldsOf({ entity_id: 'con_9', previous: { entity_type: 'contact' } })],
      ['a number', fieldsOf({ entity_id: 'con_9', entity_type: 3 })],
      ['several kinds', inferFields(parseSample(JSON.stringify(rows)))],
    ] as const)
      assert.equal(subjectOf(fields)?.kind, undefined, what);
  });

  it('refuses an actor the person’s details only where the payload names its subject, saying why', () => {
    const named = actorRefusal(fieldsOf({ record_id: 'con_9', executed_by: 'usr_5' }));
    assert.equal(
      named('executed_by'),
      '"executed by" in executed_by: whoever made the change, not record_id, whom the payload is about',
    );
    assert.equal(named('email'), undefined);
    assert.equal(actorRefusal(fieldsOf({ executed_by: 'usr_5' }))('executed_by'), undefined);
  });

  it('asks about an actor with no subject only where it was taken as the person’s', () => {
    const body = { event: 'password.changed', executed_by: 'usr_5', performer: { email: 'ada@example.com' } };
    const r = ask(body, { executed_by: 'user_id', 'performer.email': 'user.email' });
    assert.deepEqual(r.questions, [
      {
        target: 'user_id',
        ask: 'Is executed_by the person\'s? "executed by" in executed_by says it is whoever acted, who may not be the person the event is about.',
        options: [{ column: 'executed_by', why: '"executed by" in executed_by: whoever acted' }],
      },
      {
        target: 'user.email',
        ask: 'Is performer.email the person\'s? "performer" in performer says it is whoever acted, who may not be the person the event is about.',
        options: [{ column: 'performer.email', why: '"performer" in performer: whoever acted' }],
      },
    ]);
    assert.deepEqual(ask(body, {}).questions, []);
  });

  it('asks about a bare user id beside a subject, taken as the user id or the external id', () => {
    for (const [column, target] of [
      ['uid', 'user.external_id'],
      ['user_uuid', 'user_id'],
      ['data.UserId', 'user_id'],
    ] as const) {
      const [top, leaf] = column.includes('.') ? column.split('.') : [undefined, column];
      const ids = { [leaf as string]: 'usr_5' };
      const r = ask(
        { entity_id: 'inv_2', entity_type: 'invoice', ...(top ? { [top]: ids } : ids) },
        { [column]: target },
      );
      assert.deepEqual(
        r.questions.map((q) => [q.target, q.options.map((o) => o.column)]),
        [[target, [column]]],
        column,
      );
    }
    for (const column of ['owner_user_id', 'userIdHash', 'uid_token']) {
      const r = ask(
        { entity_id: 'inv_2', entity_type: 'invoice', [column]: 'usr_5' },
        { [column]: 'user_id' },
      );
      assert.deepEqual(r.questions, [], column);
    }
  });

  it('says about what, with the subject’s kind where a column names it', () => {
    const plain = ask({ entity_id: 'cus_81', UserId: 'usr_5' }, { UserId: 'user_id' });
    assert.deepEqual(plain.questions, [
      {
        target: 'user_id',
        ask: "Is UserId the person's id? The payload is about entity_id; a user's id beside it may be whoever made the change.",
        options: [
          {
            column: 'UserId',
            why: "a user's id beside entity_id, the record the payload is about: it may be whoever made the change",
          },
        ],
      },
    ]);
    assert.equal(guessOf(plain, 'UserId')?.target, 'user_id');
    const invoice = ask(
      { entity_id: 'inv_2', entity_type: 'invoice', UserId: 'usr_5' },
      { UserId: 'user_id' },
    );
    assert.equal(
      invoice.questions[0]?.options[0]?.why,
      "a user's id beside entity_id (entity_type: invoice), the record the payload is about: it may be whoever made the change",
    );
  });

  it('preselects the subject’s id when its kind has a person’s word, and it is still an event field', () => {
    const body = { entity_id: 'con_9', entity_type: 'crm.contact', UserId: 'usr_5' };
    const r = ask(body, { UserId: 'user_id' });
    assert.deepEqual(r.questions, [
      {
        target: 'user_id',
        ask: "Which column is the person's id? The payload is about entity_id, a crm.contact; UserId names a user, maybe whoever made the change.",
        options: [
          { column: 'entity_id', why: 'the id of the crm.contact the payload is about (entity_type)' },
          {
            column: 'UserId',
            why: "a user's id beside entity_id (entity_type: crm.contact), the record the payload is about: it may be whoever made the change",
          },
        ],
      },
    ]);
    // The guesses swapped, each saying why.
    const swapped = ['entity_id', 'UserId'].map((c) => guessOf(r, c));
    assert.deepEqual(
      swapped.map((g) => `${g?.target} ${g?.field}`),
      ['user_id undefined', 'event_data user_id_data'],
    );
    assert.match(
      swapped[0]?.why ?? '',
      /^the id of the crm\.contact the payload is about \(entity_type\); asked above, preselected$/,
    );
    assert.match(
      swapped[1]?.why ?? '',
      /^a user's id beside entity_id .* whoever made the change; kept as a field, asked above$/,
    );
    // Taken as something else already (the event's id), the subject's id is not moved.
    const taken = ask(body, { UserId: 'user_id', entity_id: 'event_id' });
    assert.deepEqual(
      taken.questions[0]?.options.map((o) => o.column),
      ['UserId'],
    );
    assert.equal(guessOf(taken, 'entity_id')?.target, 'event_id');
  });

  describe('the record the event’s type names', () => {
    const named = (body: unknown) => recordNamedByType(fieldsOf(body), () => true);

    it('reads the type from each top-level name of it, and the record from its first words', () => {
      for (const name of ['type', 'event', 'eventType', 'event_name', 'topic', 'trigger'])
        assert.deepEqual(
          named({ [name]: 'booking.created', identifiers: { bookingId: 'b_1' } }),
          { id: 'identifiers.bookingId', kind: { column: name, value: 'booking' } },
          name,
        );
      assert.equal(named({ data: { type: 'booking.created' }, bookingId: 'b_1' }), undefined);
      // Another column's words name no record, whatever they say.
      assert.equal(named({ note: 'booking moved', bookingId: 'b_1' }), undefined);
      assert.deepEqual(
        named({ topic: 'calendar_event.created', calendarEventId: 'ce_1', bookingId: 'b_1' }),
        {
          id: 'calendarEventId',
          kind: { column: 'topic', value: 'calendar event' },
        },
      );
      assert.equal(
        named({ type: 'envelope-sent', data: { detail: { envelopeId: 'env_1' } } })?.id,
        'data.detail.envelopeId',
      );
    });

    it('takes only a filled id of text or a whole number, and never a plain id for a type naming nothing', () => {
      assert.equal(named({ type: 'booking.created', bookingId: 7 })?.id, 'bookingId');
      for (const [what, body] of [
        ['empty', { type: 'booking.created', bookingId: null }],
        ['a list', { type: 'booking.created', booking_ids: ['b_1', 'b_2'] }],
        ['a yes/no', { type: 'booking.created', bookingId: true }],
        ['a plain id', { type: 'ping', id: 'p_1' }],
      ] as const)
        assert.equal(named(body), undefined, what);
    });
  });
});
