/**
 * An object that says it holds a person (issue #94, core/samples/person-kind.ts): where nothing is
 * taken or asked as the person's id, the plain id of an object whose kind column holds a person's
 * word (`actor.type: Person`, `sender.role: customer`) is offered with nothing preselected; never
 * a `user`, a qualified kind, an agent's or a business party's object, nor beside a person's id
 * already found.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const kindAsk = (body: unknown) =>
  guess(body).questions.find((q) => q.target === 'user_id' && /hold a person|holds a person/.test(q.ask));

/** A chat's activity: who posted, what, and where. */
const note = {
  type: 'Create',
  actor: { type: 'Person', id: 'users/ada', name: 'Ada Lovelace' },
  object: { type: 'Note', id: '1567', content: 'hi' },
  target: { type: 'Collection', id: 'room-9', name: 'world' },
};

describe('the creator: an object that says it holds a person', () => {
  it('offers the actor’s id, nothing preselected, where the person’s id was missed', () => {
    const q = kindAsk(note);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['actor.id'],
    );
    assert.ok(!guess(note).columns.some((c) => c.target === 'user_id'), 'nothing filled');
  });

  it('offers a role or kind column’s person in other shapes', () => {
    const chat = {
      id: 'evt_1',
      event: 'message.new',
      party: { role: 'customer', _id: 'c-31' },
      body: 'Hello',
    };
    assert.deepEqual(
      kindAsk(chat)?.options.map((o) => o.column),
      ['party._id'],
    );
    const crm = {
      type: 'message.created',
      message: { id: 'm-1', text: 'x' },
      from: { kind: 'Client', id: 77 },
    };
    assert.deepEqual(
      kindAsk(crm)?.options.map((o) => o.column),
      ['from.id'],
    );
  });

  it('leaves a user, a qualified kind and an agent alone', () => {
    assert.equal(kindAsk({ ...note, actor: { type: 'User', id: 'u-1' } }), undefined);
    assert.equal(kindAsk({ ...note, actor: { type: 'workspace-member', id: 'w-1' } }), undefined);
    assert.equal(kindAsk({ ...note, actor: { type: 'agent', id: 'a-1' } }), undefined);
  });

  it('asks nothing more where the person’s id is found already', () => {
    const found = { ...note, customer_id: 'cus_9', email: 'ada@example.org' };
    assert.equal(kindAsk(found), undefined);
  });
});
