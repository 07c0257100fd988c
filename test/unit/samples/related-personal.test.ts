/**
 * A related person's details are all personal (issue #94, core/samples/party.ts `relatedDetail`):
 * an emergency contact's, a guardian's or next of kin's relationship, notes or id are theirs, so
 * they are marked personal like their e-mail and phone, never filled as the person's. A flag, an
 * empty column, a parent record's id and a relationship that names no related person are not.
 * Payloads invented for these tests (flat and nested, JSON and form bodies).
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { guessOf } from './rule-fields.ts';

type Guesses = ReturnType<typeof guessOf>;
const personal = (g: Guesses, column: string) =>
  g.columns.find((c) => c.column === column)?.personal === true;

describe('the creator: a related person’s details', () => {
  it('marks every detail of an emergency contact, a guardian or next of kin personal', () => {
    const g = guessOf({
      action: 'profile.created',
      profile: {
        id: 'p-1',
        email: 'ana@x.example',
        emergency_contact_relationship: 'Sister',
        emergencyContact: { relationship: 'Father', notes: 'call after 6pm' },
        guardian: { relation: 'mother', ref: 'G-7' },
        next_of_kin_relationship: 'Spouse',
      },
    });
    for (const column of [
      'profile.emergency_contact_relationship',
      'profile.emergencyContact.relationship',
      'profile.emergencyContact.notes',
      'profile.guardian.relation',
      'profile.guardian.ref',
      'profile.next_of_kin_relationship',
    ])
      assert.equal(personal(g, column), true, column);
    assert.ok(!g.columns.some((c) => c.target.startsWith('user') && c.column.includes('guardian')));
  });

  it('reads the same of a form body', () => {
    const sample = parseSample('email=ana%40x.example&emergency_contact_relationship=Brother&amount=5');
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.equal(personal(g, 'emergency_contact_relationship'), true);
  });

  it('marks no flag, no parent record and no relationship of no related person', () => {
    const g = guessOf({
      emergency_contact_verified: true,
      parent_id: 'ord-1',
      relationship: 'customer',
      price: { home_emergency_premium: 12.5 },
      assistant: { source: 'bot', reasons: 'faq' },
    });
    for (const column of [
      'emergency_contact_verified',
      'parent_id',
      'relationship',
      'price.home_emergency_premium',
      'assistant.source',
    ])
      assert.equal(personal(g, column), false, column);
  });
});
