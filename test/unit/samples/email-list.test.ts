/**
 * A list of addresses (issue #94, core/samples/email-list.ts): a column whose values are lists of
 * e-mail addresses fills the person's e-mail with its first address (draft.ts writes the
 * translator's `{ path: "0" }`), and where no address is the person's, the lists are offered in a
 * question. Payloads invented for these tests.
 */
import assert from 'node:assert/strict';
import { draftResources } from '../../../core/samples/draft.ts';
import { isAddressList } from '../../../core/samples/email-list.ts';
import type { InferredField, ParsedSample } from '../../../core/samples/sample.ts';
import { applyTransforms } from '../../../core/translate/transforms.ts';
import type { TranslatorTransform } from '../../../schemas/translator.ts';
import { fieldsOf } from '../../support/page-steps.ts';

const field = (name: string, examples: unknown[]): InferredField => ({
  name,
  type: 'json',
  examples,
  distinct: examples.length,
  nullable: false,
});
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
});
