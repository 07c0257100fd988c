/**
 * Another person's contact details (issue #94, core/samples/party.ts `RELATED_PARTY`): an e-mail,
 * phone, name or id whose column or object names a person tied to the event's person (an
 * emergency contact, next of kin, a guardian, a spouse, a manager, a witness) is that other
 * person's: never filled nor offered as the person's, still marked personal. The person's own
 * details beside them, and a `parent_id` (a parent record), are read as before.
 * Payloads invented for these tests, in several shapes (flat and nested, camelCase and snake_case,
 * JSON and form bodies).
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { partyOf } from '../../../core/samples/party.ts';
import { guessOf } from './rule-fields.ts';

type Guesses = ReturnType<typeof guessOf>;

/** The columns filled or offered as a person's detail (`user_id`, `user.*`). */
function asPerson(g: Guesses): string[] {
  const person = (t: string) => t === 'user_id' || t.startsWith('user.');
  return [
    ...g.columns.filter((c) => person(c.target)).map((c) => c.column),
    ...g.questions.filter((q) => person(q.field ?? q.target)).flatMap((q) => q.options.map((o) => o.column)),
  ];
}

/** Whether the page marks a column personal. */
const personal = (g: Guesses, column: string) =>
  g.columns.find((c) => c.column === column)?.personal === true;

/** A member's sign-up with their own details. */
const member = {
  type: 'member.created',
  member: {
    id: 'mem_41',
    email: 'ada@example.org',
    phone: '+442079460018',
    first_name: 'Ada',
    created_at: '2026-05-01T09:00:00Z',
  },
};

describe('the creator: another person’s contact details', () => {
  it('reads a relation word as another person’s party, over a person word beside it', () => {
    for (const [column, word] of [
      ['profile.emergency_contact_phone', 'emergency'],
      ['emergencyContact.phoneNumber', 'emergency'],
      ['next_of_kin.email', 'kin'],
      ['guardian_phone', 'guardian'],
      ['applicant.spouse.mobile', 'spouse'],
      ['employee.manager_email', 'manager'],
      ['parent_email', 'parent'],
      ['signature.witness.name', 'witness'],
    ] as const) {
      const p = partyOf(column);
      assert.equal(p?.party, 'related', column);
      assert.equal(p.word, word, column);
    }
  });

  it('never fills nor offers an emergency contact’s phone or e-mail as the person’s, and marks them personal', () => {
    const body = {
      ...member,
      member: {
        ...member.member,
        emergency_contact_phone: '+447700900123',
        emergency_contact_email: 'grace@example.org',
        emergency_contact_relationship: 'sister',
      },
    };
    const g = guessOf(body);
    assert.deepEqual(
      asPerson(g).filter((c) => c.includes('emergency')),
      [],
    );
    assert.ok(g.columns.some((c) => c.column === 'member.phone' && c.target === 'user.phone'));
    assert.ok(personal(g, 'member.emergency_contact_phone'));
    assert.ok(personal(g, 'member.emergency_contact_email'));
  });

  it('reads other relations and shapes alike: nested, camelCase, flat, with no phone of the person’s', () => {
    for (const [extra, column] of [
      [
        { emergencyContact: { name: 'Grace Hopper', phoneNumber: '+447700900123' } },
        'emergencyContact.phoneNumber',
      ],
      [{ next_of_kin: { email: 'grace@example.org', relation: 'mother' } }, 'next_of_kin.email'],
      [{ guardian_phone: '+447700900123', guardian_name: 'Grace Hopper' }, 'guardian_phone'],
      [{ spouse: { mobile: '+447700900123' } }, 'spouse.mobile'],
    ] as const) {
      const { phone: _, ...own } = member.member;
      const g = guessOf({ type: 'member.created', member: { ...own, ...extra } });
      assert.deepEqual(
        asPerson(g).filter((c) => c === `member.${column}`),
        [],
        column,
      );
      assert.ok(personal(g, `member.${column}`), column);
    }
  });

  it('reads a form body’s guardian the same, the person’s own e-mail still filled', () => {
    const sample = parseSample(
      'first_name=Ada&email=ada%40example.org&guardian_phone=%2B447700900123&guardian_email=grace%40example.org',
    );
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.deepEqual(
      asPerson(g).filter((c) => c.startsWith('guardian')),
      [],
    );
    assert.ok(g.columns.some((c) => c.column === 'email' && c.target === 'user.email'));
    assert.ok(personal(g, 'guardian_phone'));
  });

  it('still fills the person’s own phone beside no relation word, and reads no parent record as a person', () => {
    const g = guessOf(member);
    assert.ok(g.columns.some((c) => c.column === 'member.phone' && c.target === 'user.phone'));
    for (const column of ['parent_id', 'parent_order.id', 'order.parent.email', 'contact.phone'])
      assert.notEqual(partyOf(column)?.party, 'related', column);
    // The same phone under a relation's name is no longer the person's.
    const { phone, ...own } = member.member;
    const moved = guessOf({ ...member, member: { ...own, guardian_phone: phone } });
    assert.ok(!moved.columns.some((c) => c.target === 'user.phone'));
  });
});
