/**
 * A test address the format check refuses (issue #94, core/samples/empty-detail.ts
 * `looseAddress`): `"[TEST] jo@doe.com"` or `"test@example.com1"` in a column named for the
 * person's e-mail is offered with no answer preselected, as a stand-in is; a real address (filled
 * as before), text with no `@`, a business's column and a column named for no e-mail are not.
 */
import assert from 'node:assert/strict';
import { looseAddress } from '../../../core/samples/empty-detail.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const offered = (body: unknown) =>
  guess(body)
    .questions.filter((q) => q.target === 'user.email' && q.noneGuessed)
    .flatMap((q) => q.options.map((o) => o.column));
const field = (examples: string[], over: Partial<InferredField> = {}): InferredField => ({
  name: 'email',
  type: 'string',
  nullable: false,
  examples,
  distinct: examples.length,
  ...over,
});

describe('the creator: a test address the format check refuses', () => {
  it('offers an enrolment’s marked address, none preselected, where the e-mail was missed', () => {
    const body = {
      resource: 'enrollment',
      action: 'created',
      payload: { id: 7, user: { id: 12, email: '[TEST] jo@doe.com', first_name: 'Jo' } },
    };
    assert.deepEqual(offered(body), ['payload.user.email']);
    assert.ok(!guess(body).columns.some((c) => c.target === 'user.email'), 'nothing filled');
  });

  it('offers addresses with a malformed domain, two columns at once', () => {
    const body = {
      event: 'account.confirmation',
      payload: { user: { id: 'u1', email: 'test@example.com1' }, recipient_email: 'test@example.com1' },
    };
    assert.deepEqual(offered(body), ['payload.user.email', 'payload.recipient_email']);
  });

  it('fills a real address as before, and offers nothing for text with no address', () => {
    const real = guess({ event: 'signup', user: { id: 'u2', email: 'ada@example.org' } });
    assert.ok(real.columns.some((c) => c.column === 'user.email' && c.target === 'user.email'));
    assert.deepEqual(offered({ event: 'signup', user: { id: 'u3', email: 'not given' } }), []);
  });

  it('reads only e-mail columns the check refused, every value an address', () => {
    assert.equal(looseAddress(field(['[TEST] jo@doe.com']), 'user.email'), true);
    assert.equal(looseAddress(field(['test@example.com1', 'x@y.z9']), 'user.email'), true);
    assert.equal(looseAddress(field(['jo@doe.com'], { format: 'email' }), 'user.email'), false);
    assert.equal(looseAddress(field(['jo@doe.com', 'none']), 'user.email'), false);
    assert.equal(looseAddress(field(['a@@b']), 'user.email'), false);
    assert.equal(looseAddress(field(['[email protected]']), 'user.email'), false);
    assert.equal(looseAddress(field(['[TEST] jo@doe.com']), 'user.phone'), false);
  });
});
