/**
 * More names of an id named for the event's person (issue #94, core/samples/role-id.ts
 * `personRoleOfId`): the roles `person`, `prospect`, `applicant`, `shopper` and `learner`, the id's
 * word before the role's (`idcustomer`), and one word of a vendor's prefix before it
 * (`mj_contact_id`), never one that names another record (`previousContactId`). Where nothing is
 * taken or asked as the person's id, such an id is offered with no answer preselected.
 */
import assert from 'node:assert/strict';
import { personRoleOfId } from '../../../core/samples/role-id.ts';
import { isPersonId, read, targetOf } from '../../support/page-steps.ts';

const offered = (body: unknown, column: string) =>
  read(body).guesses.questions.find((q) => q.options.some((o) => o.column === column));

describe('the creator: more names of an id named for the event’s person', () => {
  it('reads the new roles, the id’s word first, and a vendor’s prefix', () => {
    const cases: Record<string, string> = {
      ProspectID: 'prospect',
      'data.person_id': 'person',
      applicantId: 'applicant',
      'data.idcustomer': 'customer',
      mj_contact_id: 'contact',
      hs_lead_uuid: 'lead',
    };
    for (const [column, role] of Object.entries(cases)) assert.equal(personRoleOfId(column), role, column);
  });

  it('reads no role in another record’s id, a longer name, or a word that is no role', () => {
    for (const column of [
      'previousContactId',
      'parent_customer_id',
      'initialContactId',
      'order_id',
      'a_b_contact_id',
    ])
      assert.equal(personRoleOfId(column), undefined, column);
  });

  it('offers a CRM’s ProspectID, none preselected, where nothing else is the person’s id', () => {
    const body = {
      ProspectID: 'a311900c-0e56',
      FirstName: 'Ana',
      Source: 'Web',
      CreatedOn: '2026-01-02 10:00:00',
    };
    const q = offered(body, 'ProspectID');
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.ok(!isPersonId(targetOf(read(body).guesses, 'ProspectID')));
  });

  it('offers an e-mail service’s prefixed contact id and a shop’s idcustomer the same way', () => {
    assert.ok(
      offered(
        { event: 'open', time: 1700000000, mj_contact_id: 740195877, MessageID: 19421 },
        'mj_contact_id',
      ),
    );
    assert.ok(
      offered({ event: 'orders.allocated', data: { idorder: 9, idcustomer: 5633 } }, 'data.idcustomer'),
    );
  });
});
