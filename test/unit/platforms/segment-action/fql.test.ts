/**
 * core/platforms/segment-action/fql.ts: subscriptions read by Segment's own parser and matcher
 * (@segment/destination-subscriptions, which actions-core matches with in forward-catalog), so the
 * decision layer reads each text as the runtime does — including Segment's own readings, such as
 * `event == "X"` taking no event — and knows which verdicts hold for every event of one name.
 */
import assert from 'node:assert/strict';
import { compileFql } from '../../../../core/platforms/segment-action/fql.ts';

const order = { type: 'track', event: 'Order Completed', properties: { total: 150 } };
const page = { type: 'page', name: 'Home', properties: { name: 'Home' } };
const custom = { type: 'track', event: 'quote_requested', properties: {} };

/** Each text: whether it takes the order, the page and the custom event, and whether it reads only the call. */
const cases: readonly [string, readonly boolean[], boolean][] = [
  ['type = "track"', [true, false, true], true],
  ['type = "track" and event = "Order Completed"', [true, false, false], true],
  ['type = "track" or type = "page"', [true, true, true], true],
  ['type = "track" and (event = "Product Added" or event = "Order Completed")', [true, false, false], true],
  [
    '\n  type = "track"\n  and event != "User Deleted"\n  and event != "quote_requested"\n',
    [true, false, false],
    true,
  ],
  // Segment compares the call type as written: "Identify" is no identify call.
  ['type = "Identify"', [false, false, false], true],
  // Iterable's published default: Segment's parser reads `==` as `= "="`, so it takes nothing.
  ['type = "track" and event == "Order Completed"', [false, false, false], true],
  ['type = "page" and properties.name = "Home"', [false, true, false], false],
  ['properties.total > 100 or type = "page"', [true, true, false], false],
  ['type = "page" and name = "Home"', [false, true, false], false],
];

describe('segment_action: FQL by Segment’s parser', () => {
  for (const [text, expected, nameOnly] of cases)
    it(`${JSON.stringify(text)} → ${expected.join(', ')}${nameOnly ? '' : ' (reads more than the call)'}`, () => {
      const fql = compileFql(text);
      assert.equal(fql.error, undefined);
      assert.deepEqual(
        [order, page, custom].map((e) => fql.takes(e)),
        expected,
      );
      assert.equal(fql.nameOnly, nameOnly);
    });

  it('a text Segment cannot parse has its error, and takes nothing', () => {
    const fql = compileFql('type = "track" and (');
    assert.match(fql.error ?? '', /./);
    assert.equal(fql.takes(order), false);
  });

  it('collects the event names a subscription names with `=`', () => {
    assert.deepEqual(
      [...compileFql('event = "quote_requested" or type = "page" or event != "x"').names],
      ['quote_requested'],
    );
    assert.deepEqual([...compileFql('type = "track" and (event = "A" or event = "B")').names], ['A', 'B']);
  });
});
