/**
 * A list of addresses (issue #94, core/samples/email-list.ts): a column whose values are lists of
 * e-mail addresses fills the person's e-mail with its first address (draft.ts writes the
 * translator's `{ path: "0" }`), and where no address is the person's, the lists are offered in a
 * question. Payloads invented for these tests.
 */
import assert from 'node:assert/strict';
import { draftResources } from '../../../core/samples/draft.ts';
import { addressPath, isAddressList } from '../../../core/samples/email-list.ts';
import type { InferredField, ParsedSample } from '../../../core/samples/sample.ts';
import { applyTransforms } from '../../../core/translate/transforms.ts';
import type { TranslatorTransform } from '../../../schemas/translator.ts';
import { fieldsOf, read } from '../../support/page-steps.ts';

const field = (name: string, examples: unknown[]): InferredField => ({
  name,
  type: 'json',
  examples,
  distinct: examples.length,
  nullable: false,
});
const emailQuestion = (body: unknown) => {
  const { guesses } = read(body);
  const q = guesses.questions.find((x) => (x.field ?? x.target) === 'user.email');
  const taken = guesses.columns.find((c) => c.target === 'user.email')?.column;
  return { q, taken };
};
const SAMPLE: ParsedSample = { format: 'json', header: true, columns: [], rows: [], problems: [] };

describe('the creator: a list of addresses', () => {
  it('reads a column of lists of addresses as one, and no list of other things', () => {
    assert.equal(isAddressList(field('data.to', [['ana@example.com']])), true);
    assert.equal(isAddressList(field('recipients', [['a@example.com', 'b@example.org']])), true);
    assert.equal(isAddressList(field('tags', [['vip', 'new']])), false);
    assert.equal(isAddressList(field('to', [[]])), false);
    assert.equal(isAddressList(field('from', [[{ email: 'a@example.com' }]])), false);
    const [f] = fieldsOf({ mail: { destination: ['kim@example.com'] } });
    assert.ok(f && isAddressList(f), 'the reading step keeps such a list as JSON');
  });

  it('reads a list of objects holding addresses only under a name that says e-mails', () => {
    assert.equal(
      addressPath(field('user.emails', [[{ email: 'kim@example.com', verified: true }]])),
      '0.email',
    );
    assert.equal(addressPath(field('visitor.email', [[{ address: 'kim@example.com' }]])), '0.address');
    assert.equal(
      addressPath(field('meeting.attendees', [[{ name: 'Kim', email: 'kim@example.com' }]])),
      undefined,
    );
    assert.equal(addressPath(field('user.emails', [[{ id: 'e_1', verified: true }]])), undefined);
    assert.equal(addressPath(field('data.to', [['kim@example.com']])), '0');
  });

  it('fills the person’s e-mail with the address of a list’s first object', () => {
    const d = draftResources({
      eventName: 'user',
      translatorName: 'users',
      sample: SAMPLE,
      fields: [field('user.emails', [[{ id: 'e_1', email: 'Kim@Example.com' }]])],
      choices: [{ column: 'user.emails', target: 'user.email' }],
    });
    const written = (
      d.translator.spec.fields as { target: string; transforms?: TranslatorTransform[] }[]
    ).find((x) => x.target === 'user.email');
    assert.ok(written?.transforms);
    const step = applyTransforms([{ id: 'e_1', email: 'Kim@Example.com' }], written.transforms, {});
    assert.deepEqual(step, { ok: true, value: 'kim@example.com' });
  });

  it('fills the person’s e-mail with a list’s first address, trimmed and in lower case', () => {
    const f = field('data.to', [[' Ana@Example.com ']]);
    const d = draftResources({
      eventName: 'message',
      translatorName: 'messages',
      sample: SAMPLE,
      fields: [f],
      choices: [{ column: 'data.to', target: 'user.email' }],
    });
    const written = (
      d.translator.spec.fields as { target: string; transforms?: TranslatorTransform[] }[]
    ).find((x) => x.target === 'user.email');
    assert.ok(written?.transforms);
    const step = applyTransforms([' Ana@Example.com ', 'b@example.com'], written.transforms, {});
    assert.deepEqual(step, { ok: true, value: 'ana@example.com' });
  });

  it('asks about a list of one address, preselected, where no address is the person’s', () => {
    const { q, taken } = emailQuestion({
      type: 'message.delivered',
      data: { id: 'm_1', to: ['ana@example.com'], subject: 'Your receipt' },
    });
    assert.equal(taken, 'data.to');
    assert.ok(q && !q.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['data.to'],
    );
  });

  it('offers lists of several addresses, or a copy’s, with no answer preselected', () => {
    for (const body of [
      { event: 'meeting.scheduled', meeting: { id: 'mt_2', guests: ['a@example.com', 'b@example.org'] } },
      { event: 'ticket.created', ticket: { id: 't_3', cc_emails: ['c@example.net'] } },
    ]) {
      const { q, taken } = emailQuestion(body);
      assert.equal(taken, undefined, JSON.stringify(body));
      assert.ok(q?.noneGuessed, JSON.stringify(body));
      assert.equal(q.options.length, 1);
    }
  });

  it('offers a list after a sender’s address no rule placed, nothing preselected', () => {
    const { q, taken } = emailQuestion({
      type: 'email.sent',
      data: { id: 'e_4', from: 'shop@example.com', to: ['ana@example.com'] },
    });
    assert.equal(taken, undefined);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['data.from', 'data.to'],
    );
  });

  it('never offers a business party’s list', () => {
    const { q } = emailQuestion({
      type: 'order.created',
      merchant: { id: 'mc_1', emails: ['shop@example.com'] },
    });
    assert.equal(q?.options.some((o) => o.column === 'merchant.emails') ?? false, false);
  });
});
