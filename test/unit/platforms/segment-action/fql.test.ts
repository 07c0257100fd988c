/**
 * core/platforms/segment-action/fql.ts: the part of Segment's subscription language the decision
 * layer judges from an event's name — conditions on `type` and `event`, `and`/`or`, one level of
 * parentheses — and `undefined` (send; the runtime decides) for the rest, never a refusal the
 * runtime's matcher (actions-core's, which these cases were checked against) would not make.
 */
import assert from 'node:assert/strict';
import { compileFql, type SegmentCall } from '../../../../core/platforms/segment-action/fql.ts';

const order: SegmentCall = { type: 'track', event: 'Order Completed' };
const page: SegmentCall = { type: 'page', event: undefined };
const custom: SegmentCall = { type: 'track', event: 'quote_requested' };

const cases: readonly [string, readonly (boolean | undefined)[]][] = [
  ['type = "track"', [true, false, true]],
  ['type = "track" and event = "Order Completed"', [true, false, false]],
  ['type=identify', [false, false, false]],
  ['type = track or type = page', [true, true, true]],
  ['type = "track" and (event = "Product Added" or event = "Order Completed")', [true, false, false]],
  [
    '\n    type = "track"\n    and event != "User Deleted"\n    and event != "quote_requested"\n  ',
    [true, false, false],
  ],
  // actions-core compares the call type as written: "Identify" is no identify call.
  ['type = "Identify"', [false, false, false]],
  // A property is not known from the name: undefined, unless the rest decides.
  ['type = "page" and properties.name = "Home"', [false, undefined, false]],
  ['properties.total > 100 or type = "page"', [undefined, true, undefined]],
  ['contains(event, "Order")', [undefined, undefined, undefined]],
  ['type = "track" and !match(event, "Order*")', [undefined, false, undefined]],
  // Read by actions-core its own way (the last conjunction wins, `==` is two operators,
  // a comma is skipped, nested parentheses end at the first `)`): not judged here.
  ['type = "track" and event = "X" or type = "page"', [undefined, undefined, undefined]],
  ['type = "track" and event == "Cart Updated"', [undefined, undefined, undefined]],
  ['type = "track", event = "X"', [undefined, undefined, undefined]],
  ['((type = "page"))', [undefined, undefined, undefined]],
  ['event = "a\\"b"', [undefined, undefined, undefined]],
  ['not type = "track"', [undefined, undefined, undefined]],
  ['', [undefined, undefined, undefined]],
];

describe('segment_action: FQL judged from the event name', () => {
  for (const [fql, expected] of cases)
    it(`${JSON.stringify(fql)} → ${expected.map(String).join(', ')}`, () => {
      const compiled = compileFql(fql);
      assert.deepEqual(
        [order, page, custom].map((c) => compiled.takes(c)),
        expected,
      );
    });

  it('lists the event names a subscription equals, and only those', () => {
    assert.deepEqual(
      [...compileFql('event = "quote_requested" or type = "page" or event != "x"').names],
      ['quote_requested'],
    );
    assert.deepEqual([...compileFql('type = "track" and (event = "A" or event = "B")').names], ['A', 'B']);
    assert.deepEqual([...compileFql('contains(event, "quote")').names], []);
  });
});
