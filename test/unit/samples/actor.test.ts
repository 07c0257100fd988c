/**
 * An actor is not the subject (issue #94, core/samples/actor.ts and its use in guess.ts): where a
 * payload names what it is about (an entity, a record, a target), the ids and details of whoever
 * made, initiated or performed the change are never filled as the person's; a bare user id beside
 * the subject is asked about, the subject's id preselected when its kind is a person's; with no
 * subject named, an actor taken as the person is asked about, never filled silently.
 */
import assert from 'node:assert/strict';
import { actorOf, subjectOf } from '../../../core/samples/actor.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, guesses: guessChoices(fields, sample.rows) };
}
type Read = ReturnType<typeof read>;
const personIds = (r: Read) =>
  r.guesses.columns
    .filter((c) => c.target === 'user_id' || c.target === 'user.external_id')
    .map((c) => c.column);
const guessOf = (r: Read, column: string) => r.guesses.columns.find((c) => c.column === column);
const askedAbout = (r: Read, column: string) =>
  r.guesses.questions.filter((q) => q.options.some((o) => o.column === column));

/** A CRM's update of a record, made by a system user (the shape of a plugin's change context). */
const change = (kind: string) => ({
  MessageName: 'Update',
  PrimaryEntityId: '6d81597f-0f9f-e711',
  PrimaryEntityName: kind,
  SecondaryEntityName: 'none',
  InitiatingUserId: '75c2dd85-e89e-e711',
  UserId: '75c2dd85-e89e-e711',
  OrganizationId: '4ef5b371-e89e-e711',
  OperationCreatedOn: '2026-11-20T10:00:00Z',
});

/** Who acted, by name: a user's id and an e-mail, with when. */
const acted = {
  performed_by_user_id: 'usr_5',
  initiator_email: 'ada@example.com',
  changed_at: '2026-11-20T10:00:00Z',
};

describe('the creator: an actor beside the subject', () => {
  it('reads who acted from a name or an object above it, and what the payload is about', () => {
    assert.deepEqual(actorOf('InitiatingUserId'), { word: 'initiating', segment: 'InitiatingUserId' });
    assert.deepEqual(actorOf('actor.id'), { word: 'actor', segment: 'actor' });
    assert.equal(actorOf('performed_by')?.word, 'performed by');
    assert.equal(actorOf('data.triggeredByUserId')?.word, 'triggered by');
    assert.equal(actorOf('initiator.email')?.segment, 'initiator');
    for (const none of ['user_id', 'contact.id', 'created_at', 'device.user_agent', 'customer.name'])
      assert.equal(actorOf(none), undefined, none);
    const crm = read(change('contact'));
    assert.deepEqual(subjectOf(crm.fields), {
      id: 'PrimaryEntityId',
      kind: { column: 'PrimaryEntityName', value: 'contact' },
    });
    assert.deepEqual(subjectOf(read({ target: { id: 'c_1', type: 'customer' }, actor: 'x' }).fields), {
      id: 'target.id',
      kind: { column: 'target.type', value: 'customer' },
    });
    assert.equal(subjectOf(read({ data: { record_id: 'r_1' } }).fields)?.id, 'data.record_id');
    // Inside another object it is that object's; always empty it names nothing.
    assert.equal(subjectOf(read({ order: { entity_id: 'e_1' }, entity_id: null }).fields), undefined);
  });

  it('asks whose id a bare UserId is beside a contact the payload is about, the contact’s preselected', () => {
    const r = read(change('contact'));
    assert.deepEqual(personIds(r), ['PrimaryEntityId']);
    const [q] = askedAbout(r, 'UserId');
    assert.equal(q?.target, 'user_id');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['PrimaryEntityId', 'UserId'],
    );
    assert.match(
      q?.ask ?? '',
      /The payload is about PrimaryEntityId, a contact; UserId names a user, maybe whoever made the change/,
    );
    assert.equal(guessOf(r, 'UserId')?.target, 'event_data');
    assert.equal(guessOf(r, 'PrimaryEntityId')?.confidence, 0.5);
    // Whoever initiated it is kept as a field, saying why.
    assert.equal(guessOf(r, 'InitiatingUserId')?.target, 'event_data');
  });

  it('asks, the user id preselected, when the subject is no person (an invoice)', () => {
    const r = read(change('invoice'));
    assert.deepEqual(personIds(r), ['UserId']);
    const [q] = askedAbout(r, 'UserId');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['UserId'],
    );
    assert.match(
      q?.ask ?? '',
      /Is UserId the person's id\? The payload is about PrimaryEntityId \(PrimaryEntityName: invoice\)/,
    );
    assert.equal(guessOf(r, 'UserId')?.confidence, 0.5);
  });

  it('never fills an actor’s id or e-mail as the person’s where the payload names its subject', () => {
    const r = read({ entity_id: 'cus_81', entity_type: 'customer', ...acted });
    // Only the subject, a customer, is offered as the person (asked, subject-id.ts); no actor is.
    assert.deepEqual(personIds(r), ['entity_id']);
    assert.ok(r.guesses.questions.some((q) => q.options[0]?.column === 'entity_id'));
    assert.deepEqual(
      r.guesses.columns.filter((c) => c.target.startsWith('user')).map((c) => c.column),
      ['entity_id'],
      JSON.stringify(r.guesses.columns),
    );
    assert.match(
      guessOf(r, 'performed_by_user_id')?.why ?? '',
      /"performed by" in performed_by_user_id: whoever made the change, not entity_id/,
    );
    assert.match(guessOf(r, 'initiator_email')?.why ?? '', /"initiator" in initiator_email/);
  });

  it('takes none of the usual names of whoever made a change for the person’s id beside a subject', () => {
    for (const name of [
      'InitiatingUserId',
      'modified_by',
      'performed_by',
      'updated_by_user_id',
      'created_by',
      'triggered_by_user_id',
      'changedByUserId',
    ]) {
      const r = read({ object_id: 'con_9', object_type: 'contact', [name]: 'usr_5', name: 'Ada Lovelace' });
      assert.ok(!guessOf(r, name)?.target.startsWith('user'), `${name}: ${guessOf(r, name)?.target}`);
    }
    const nested = read({ record_id: 'con_9', actor: { id: 'usr_5', type: 'user', email: 'a@example.com' } });
    for (const column of ['actor.id', 'actor.email'])
      assert.equal(guessOf(nested, column)?.target, 'event_data');
  });

  it('asks about an actor taken as the person where nothing names a subject: a login’s actor may be the person', () => {
    const r = read({ event: 'password.changed', ...acted });
    for (const column of ['performed_by_user_id', 'initiator_email']) {
      const [q] = askedAbout(r, column);
      assert.ok(q, `${column} asked`);
      assert.match(q.ask, /whoever acted, who may not be the person the event is about/);
      assert.equal(guessOf(r, column)?.confidence, 0.5);
    }
  });

  it('leaves a user id alone where no subject and no actor is named', () => {
    const r = read({ user_id: 'u_1', email: 'ada@example.com', plan: 'pro' });
    assert.deepEqual(personIds(r), ['user_id']);
    assert.deepEqual(askedAbout(r, 'user_id'), []);
  });

  it('takes the record the event’s type names as the subject: a sending user beside an envelope is asked about', () => {
    const sent = {
      event: 'envelope-sent',
      data: { accountId: 'acc_1', userId: '9a8b7c6d-5e4f', envelopeId: 'a3b2c1d4-5e6f' },
    };
    const r = read(sent);
    assert.deepEqual(subjectOf(r.fields), {
      id: 'data.envelopeId',
      kind: { column: 'event', value: 'envelope' },
    });
    const [q] = askedAbout(r, 'data.userId');
    assert.match(
      q?.ask ?? '',
      /Is data\.userId the person's id\? The payload is about data\.envelopeId \(event: envelope\)/,
    );
    assert.equal(guessOf(r, 'data.userId')?.confidence, 0.5);
    // A record of a person (`contact.created`): its id is offered first as the person's.
    const contact = read({ type: 'contact.created', data: { contact_id: 'con_4', user_id: 'usr_2' } });
    assert.deepEqual(
      askedAbout(contact, 'data.user_id')[0]?.options.map((o) => o.column),
      ['data.contact_id', 'data.user_id'],
    );
    // The user the event is about is the subject itself, no actor beside it.
    const login = read({
      type: 'user.authenticated',
      data: { userId: 'usr_7', email: 'ada@example.com', organizationId: 'org_1' },
    });
    assert.equal(subjectOf(login.fields)?.id, 'data.userId');
    assert.deepEqual(personIds(login), ['data.userId']);
    assert.deepEqual(askedAbout(login, 'data.userId'), []);
    // A type naming no record with an id there names no subject.
    assert.equal(subjectOf(read({ type: 'ping', data: { userId: 'usr_7' } }).fields), undefined);
  });
});
