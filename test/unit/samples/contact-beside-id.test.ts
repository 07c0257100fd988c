/**
 * The person's id beside their contact details (issue #94, core/samples/contact-beside-id.ts):
 * where nothing is taken or asked as the person's id, an id in the object of the person's e-mail
 * or phone whose name says it is a person's (a plain id of an object named for a person's role, or
 * an id named for one) is offered with no answer preselected; nothing is filled. Payloads
 * invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { personNamedId } from '../../../core/samples/contact-beside-id.ts';
import { guesses, isPersonId, targetOf } from '../../support/page-steps.ts';

/** The person's id question's options and whether it preselects none. */
function offered(body: unknown) {
  const g = guesses(body);
  const q = g.questions.find((x) => x.target === 'user_id');
  return { g, columns: q?.options.map((o) => o.column) ?? [], none: q?.noneGuessed !== undefined };
}

describe('the creator: an id beside the person’s contact details is offered as theirs', () => {
  it('offers a customer’s external id beside their e-mail, none preselected, and fills nothing', () => {
    const body = {
      event: 'invoice.created',
      invoice: { number: 'INV-1', customer: { external_id: 'ext_9', email: 'bo@example.com' } },
    };
    const { g, columns, none } = offered(body);
    assert.deepEqual(columns, ['invoice.customer.external_id']);
    assert.ok(none, 'no answer preselected');
    assert.equal(isPersonId(targetOf(g, 'invoice.customer.external_id')), false);
  });

  it('offers a member’s uid beside their e-mail in a submission', () => {
    const body = {
      event: 'form.submitted',
      submission: { id: 's_1', member: { uid: 'm_3', email: 'm@example.com' } },
    };
    const { columns, none } = offered(body);
    assert.deepEqual(columns, ['submission.member.uid']);
    assert.ok(none);
  });

  it('offers nothing where the id names no person, or the contact is the business’s', () => {
    for (const body of [
      { event: 'signup', team_id: 't_1', email: 'x@example.com' },
      { event: 'message.received', account: { id: 'acc_1', email: 'owner@example.com' } },
    ]) {
      assert.deepEqual(offered(body).columns, [], JSON.stringify(body));
    }
  });

  it('reads whose an id is from its name or its object’s key, never a user’s alone', () => {
    assert.match(personNamedId('visitorId') ?? '', /visitor/);
    assert.match(personNamedId('contactIdentity.id') ?? '', /contactIdentity/);
    assert.match(personNamedId('data.customer.external_id') ?? '', /customer/);
    assert.equal(personNamedId('user.id'), undefined);
    assert.equal(personNamedId('data.userPoolId'), undefined);
    assert.equal(personNamedId('customer.name'), undefined);
    assert.equal(personNamedId('customer.order_id'), undefined);
  });
});
