/**
 * A country of a record that refers to the person is not the person's (issue #94,
 * core/samples/transaction-country.ts `referringRecordCountry` and its use in guess.ts): when the
 * person's id beside a country was taken from a reference (`userId`, `member_id`), not the
 * record's own `id`, the record is something else (a session, a login, a device) and its country
 * is that record's: kept as a field, asked about with no answer preselected. A country in a place's
 * object, under the person's own object, on a record that is the person, or beside the person's
 * e-mail filled unasked stays the person's.
 */
import assert from 'node:assert/strict';
import { referringRecordCountry } from '../../../core/samples/transaction-country.ts';
import { read, targetOf } from '../../support/page-steps.ts';

/** A sign-in session: the user is only referred to; the country is where its address was placed. */
const session = {
  session_id: 'ses_41c8a9e2',
  created_at: '2026-11-20T08:15:00Z',
  userId: 'usr_7b21f0c4',
  ip: '203.0.113.9',
  browser: 'Firefox',
  countryCode: 'DE',
};

/** A member's sign-in, nested under `data`. */
const login = {
  event: 'login.succeeded',
  data: { login_id: 'lg_19', member_id: 'mem_5520', ip: '198.51.100.4', country: 'FR' },
};

describe('the creator: a referring record’s country is not the person’s', () => {
  it('no longer fills a session’s countryCode as the person’s country, and asks with none preselected', () => {
    const { guesses } = read(session);
    assert.equal(targetOf(guesses, 'userId'), 'user_id', 'the reference is still the person’s id');
    assert.equal(targetOf(guesses, 'countryCode'), 'event_data');
    const q = guesses.questions.find((x) => x.target === 'user.country');
    assert.ok(q?.noneGuessed, 'the question preselects no answer');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['countryCode'],
    );
    assert.match(q.ask, /only by the reference userId/);
  });

  it('reads a nested record’s country the same way', () => {
    const { guesses } = read(login);
    assert.equal(targetOf(guesses, 'data.member_id'), 'user_id');
    assert.equal(targetOf(guesses, 'data.country'), 'event_data');
    const q = guesses.questions.find((x) => x.target === 'user.country');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['data.country'],
    );
  });

  it('keeps a country in a place’s object or beside the person’s own e-mail the person’s', () => {
    const located = { ...session, countryCode: undefined, location: { country: 'DE', city: 'Bonn' } };
    assert.equal(targetOf(read(located).guesses, 'location.country'), 'user.country');
    const signup = { user_id: 'u_88', email: 'lena@example.org', country: 'AT', form: 'newsletter' };
    const { guesses } = read(signup);
    assert.equal(targetOf(guesses, 'email'), 'user.email');
    assert.equal(targetOf(guesses, 'country'), 'user.country');
  });

  it('says nothing of a country beside the record’s own plain id', () => {
    const { fields, guesses } = read({ id: 'usr_1', country: 'NL', plan: 'pro' });
    const base = guesses.columns.map((c) => ({ column: c.column, target: c.target, why: c.why }));
    // Even were the plain id taken as the person's, the record would be theirs.
    const asPerson = base.map((g) => (g.column === 'id' ? { ...g, target: 'user_id' } : g));
    assert.equal(referringRecordCountry(fields, asPerson, [], 'country'), undefined);
  });
});
