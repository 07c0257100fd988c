/**
 * A stand-in for the person's e-mail or phone (issue #94, core/samples/empty-detail.ts
 * `standInDetail`): a vendor's page writes `"<email>"`, `"string"` or `"customer-test-email"`
 * where the real event carries the person's detail. Such a column, named for the detail, is
 * offered as the person's with no answer preselected, as an empty one is; so is an address a web
 * page's e-mail protection hid (`hiddenAddress`); a real value, a business's column and text that
 * is no stand-in are not.
 */
import assert from 'node:assert/strict';
import { hiddenAddress, standInDetail } from '../../../core/samples/empty-detail.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const offered = (body: unknown, target: string) =>
  guess(body)
    .questions.filter((q) => q.target === target && q.noneGuessed)
    .flatMap((q) => q.options.map((o) => o.column));
const field = (examples: string[]) => ({
  name: 'email',
  type: 'string' as const,
  nullable: false,
  examples,
  distinct: new Set(examples).size,
});

describe('the creator: a stand-in for the person’s e-mail or phone', () => {
  it('offers a sign-up’s "<email>" and "<phone_number>", none preselected, where both were missed', () => {
    const body = {
      triggerSource: 'PreSignUp_SignUp',
      userName: 'u-1',
      request: { userAttributes: { email: '<email>', phone_number: '<phone_number>' } },
    };
    assert.deepEqual(offered(body, 'user.email'), ['request.userAttributes.email']);
    assert.deepEqual(offered(body, 'user.phone'), ['request.userAttributes.phone_number']);
    const g = guess(body);
    assert.ok(
      !g.columns.some((c) => c.target === 'user.email' || c.target === 'user.phone'),
      'nothing filled',
    );
  });

  it('offers a type’s word and words naming the detail', () => {
    assert.deepEqual(offered({ event: 'reply', lead_email: 'string', lead_id: 'l-1' }, 'user.email'), [
      'lead_email',
    ]);
    assert.deepEqual(
      offered({ id: 's-1', customer: { id: 'c-1', email: 'customer-test-email' } }, 'user.email'),
      ['customer.email'],
    );
  });

  it('keeps filling a real address, and offers nothing for it', () => {
    const g = guess({ id: 'c-1', email: 'ada@example.org' });
    assert.equal(g.columns.find((c) => c.column === 'email')?.target, 'user.email');
  });

  it('offers an address a page’s e-mail protection hid, saying so, none preselected', () => {
    const body = { id: 'c-1', customer: { id: 'cu-1', email: '[email protected]' } };
    assert.deepEqual(offered(body, 'user.email'), ['customer.email']);
    const q = guess(body).questions.find((x) => x.target === 'user.email');
    assert.match(q?.options[0]?.why ?? '', /hidden in the sample by a web page's e-mail protection/);
    assert.ok(!guess(body).columns.some((c) => c.target === 'user.email'), 'nothing filled');
    // Not a stand-in the vendor wrote, nor a malformed address: its own kind.
    assert.equal(standInDetail(field(['[email protected]']), 'user.email'), false);
    assert.equal(hiddenAddress(field(['[email protected]']), 'user.email'), true);
    assert.equal(hiddenAddress(field(['[email protected]']), 'user.phone'), false);
    assert.equal(hiddenAddress(field(['[email protected]', 'ada@example.org']), 'user.email'), false);
    // A business's hidden address is not offered as the person's.
    assert.deepEqual(offered({ id: 'o-1', merchant: { email: '[email protected]' } }, 'user.email'), []);
  });

  it('offers no business’s stand-in, no plain text', () => {
    assert.deepEqual(offered({ id: 'o-1', merchant: { email: '<email>' } }, 'user.email'), []);
    assert.deepEqual(offered({ id: 'c-1', email: 'see the profile' }, 'user.email'), []);
  });

  it('reads a stand-in by its shape, for each detail', () => {
    const f = (v: string) => ({
      name: 'x',
      type: 'string' as const,
      nullable: false,
      examples: [v],
      distinct: 1,
    });
    assert.equal(standInDetail(f('{{email}}'), 'user.email'), true);
    assert.equal(standInDetail(f('a@b.co'), 'user.email'), false);
    assert.equal(standInDetail(f('string'), 'user.phone'), true);
    assert.equal(standInDetail(f('+15550100'), 'user.phone'), false);
    assert.equal(standInDetail(f('mobile number'), 'user.phone'), true);
  });
});
