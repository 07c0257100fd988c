/**
 * How the creator joins the drafts of several event types into one translator
 * (core/samples/multi-type.ts `draftMultiType`, docs/creator-inference.md "Several event types"):
 * the discriminator's lookup names the event, the fields every type maps alike are shared, each
 * type's own fields are its case (none when it has none), the key is kept only when all types
 * have the same, and the definitions pass through. The drafts here are made by hand, so each part
 * of the join is seen on its own.
 */
import assert from 'node:assert/strict';
import { draftMultiType, type TypeDraft } from '../../../core/samples/multi-type.ts';

const id = { target: 'event_id', source: 'id' };
const amount = { target: 'event_data.value', source: 'data.amount' };
const reason = { target: 'event_data.reason', source: 'data.reason' };
const plan = { target: 'event_data.plan', source: 'data.plan' };
const type = (value: string, event: string, fields: object[], key?: object): TypeDraft =>
  ({
    value,
    draft: {
      definition: { name: event },
      translator: { spec: { event, format: 'json', fields, ...(key ? { key } : {}) } },
    },
  }) as unknown as TypeDraft;
const join = (...types: TypeDraft[]) =>
  draftMultiType({ translatorName: 'vendor', discriminator: 'type', types });

describe("the creator's join of several event types", () => {
  it('names the event by lookup, shares the common fields, gives each type its own case and the common key', () => {
    const key = { source: 'id' };
    const made = join(
      type('pay', 'payment', [id, amount], key),
      type('refund', 'refund', [id, amount, reason], key),
      type('renew', 'renewal', [plan, id], key),
    );
    assert.deepEqual(made, {
      definitions: [{ name: 'payment' }, { name: 'refund' }, { name: 'renewal' }],
      translator: {
        kind: 'Translator',
        name: 'vendor',
        description: "Made with the studio's creator: 3 event types by type.",
        spec: {
          event: 'payment',
          format: 'json',
          events: ['payment', 'refund', 'renewal'],
          fields: [
            {
              target: 'event_name',
              source: 'type',
              transforms: [{ lookup: { pay: 'payment', refund: 'refund', renew: 'renewal' } }],
            },
            id,
          ],
          cases: [
            { when: { source: 'type', equals: 'pay' }, fields: [amount] },
            { when: { source: 'type', equals: 'refund' }, fields: [amount, reason] },
            { when: { source: 'type', equals: 'renew' }, fields: [plan] },
          ],
          key,
        },
      },
    });
  });

  it('keeps no key when the types disagree, and no case when they map alike', () => {
    const spec = join(type('a', 'one', [id], { source: 'id' }), type('b', 'two', [id], { source: 'uuid' }))
      .translator.spec;
    assert.equal(spec.key, undefined);
    assert.equal('cases' in spec, false);
    assert.deepEqual(spec.events, ['one', 'two']);
    assert.equal('key' in join(type('a', 'one', [id]), type('b', 'one', [id])).translator.spec, false);
  });

  it('a type whose fields are all shared has no case of its own', () => {
    const cases = join(type('a', 'one', [id, amount]), type('b', 'two', [id, plan, amount])).translator.spec
      .cases;
    assert.deepEqual(cases, [{ when: { source: 'type', equals: 'b' }, fields: [plan] }]);
  });

  it('refuses to join no type at all', () => {
    assert.throws(() => join(), { message: 'draftMultiType needs at least one type' });
  });
});
