/**
 * An object that says it holds one of the business's people (issue #94, core/samples/party.ts's
 * heldByBusiness and its use in guess.ts and party-id.ts): an object whose kind column holds an
 * agent, an admin or staff in every row is the business's, whatever its own name, and its id,
 * e-mail and phone are never filled or offered as the person's.
 */
import assert from 'node:assert/strict';
import { heldByBusiness } from '../../../core/samples/party.ts';
import { fieldsOf, guesses, isPersonId, takenAs, targetOf } from '../../support/page-steps.ts';

const personIdAsked = (body: unknown) => guesses(body).questions.some((q) => isPersonId(q.field ?? q.target));

describe('the creator: an object that says it holds an agent', () => {
  it('no longer takes an accepting agent’s user.id as the person’s, nor asks of it', () => {
    const body = {
      id: '8812',
      event: 'CHAT_ACCEPTED',
      user: { id: 'agent-77', type: 'agent', name: 'Jo Doe', online: true },
    };
    const g = guesses(body);
    assert.equal(isPersonId(targetOf(g, 'user.id')), false);
    assert.equal(personIdAsked(body), false);
  });

  it('refuses in other shapes: a sender’s role, a nested author’s kind, a member’s user_type', () => {
    for (const [body, column, target] of [
      [
        { message: { id: 'm1', text: 'Hi', sender: { role: 'support_agent', email: 'jo@example.com' } } },
        'message.sender.email',
        'user.email',
      ],
      [
        { data: { ticket_id: 't1', by: { kind: 'Staff', id: 's-1', phone: '+15551234567' } } },
        'data.by.phone',
        'user.phone',
      ],
      [
        { event_id: 'e1', member: { user_id: 'u_9', user_type: 'admin', email: 'root@example.com' } },
        'member.email',
        'user.email',
      ],
    ] as const) {
      const g = guesses(body);
      assert.deepEqual(takenAs(g, target), [], column);
      assert.equal(
        g.questions.some((q) => q.target === target && q.options[0]?.column === column && !q.noneGuessed),
        false,
        column,
      );
    }
  });

  it('still takes the person’s id where the kind names the person or an organisation', () => {
    assert.deepEqual(
      takenAs(
        guesses({ id: 'e1', user: { id: 'u_1', type: 'customer', email: 'a@example.com' } }),
        'user.email',
      ),
      ['user.email'],
    );
    // A customer of the business kind is a customer: organisations are not read as the business.
    assert.deepEqual(
      takenAs(
        guesses({ id: 'e1', customer: { id: 'cus_1', type: 'business', email: 'a@example.com' } }),
        'user.email',
      ),
      ['customer.email'],
    );
  });

  it('reads a kind only below the top, only when every row says so, never an event’s name', () => {
    const says = (body: unknown, column: string) => heldByBusiness(fieldsOf(body))(column);
    assert.equal(says({ type: 'agent', user_id: 'u_1' }, 'user_id'), undefined);
    assert.equal(
      says([{ u: { type: 'agent', id: 1 } }, { u: { type: 'visitor', id: 2 } }], 'u.id'),
      undefined,
    );
    assert.equal(says({ data: { type: 'agent.assigned', user: { id: 'u1' } } }, 'data.user.id'), undefined);
    assert.equal(says({ data: { type: 'senior support agent', id: 'u1' } }, 'data.id'), undefined);
    assert.match(
      says({ data: { user: { type: 'agent', id: 'a1' } } }, 'data.user.id') ?? '',
      /data\.user\.type: agent/,
    );
    // The kind of an object says whose its children are too, not its siblings'.
    assert.match(
      says({ agent_obj: { role: 'admin', profile: { id: 'p' } } }, 'agent_obj.profile.id') ?? '',
      /admin/,
    );
    assert.equal(says({ a: { role: 'admin' }, b: { id: 'x' } }, 'b.id'), undefined);
  });
});
