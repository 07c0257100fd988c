/**
 * An id written with a leading `$` (issue #94, core/samples/delivery.ts `envelopeEventId`,
 * core/samples/rule-guess.ts `PLAIN_ID`): some backends mark their system fields so (`$id`,
 * `$createdAt`), as others do with `_` (`_id`). A top-level `$id` is the payload's own id as `id`
 * and `_id` are; other `$` names (`$ref`, `$schema`) are no id.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { PLAIN_ID } from '../../../core/samples/rule-guess.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const eventIds = (body: unknown) =>
  guess(body)
    .columns.filter((c) => c.target === 'event_id')
    .map((c) => c.column);

describe('the creator: an id written with a leading $', () => {
  it('reads a session’s top-level $id as its own id: offered as the event’s, taken beside an event’s name', () => {
    const session = {
      $id: '5e5ea5c16897e',
      $createdAt: '2026-11-02T09:00:00.000+00:00',
      userId: '5e5bb8c16897e',
      ip: '127.0.0.1',
      provider: 'email',
    };
    // The session posted as the body, nothing naming an event: its id is asked (record-status.ts).
    assert.deepEqual(eventIds(session), []);
    assert.deepEqual(
      guess(session)
        .questions.find((q) => q.target === 'event_id')
        ?.options.map((o) => o.column),
      ['$id'],
    );
    assert.deepEqual(eventIds({ ...session, event: 'session.create' }), ['$id']);
  });

  it('takes no other $ name as an id', () => {
    assert.deepEqual(eventIds({ $ref: 'doc-7', $schema: 'v1', createdAt: '2026-11-02T09:00:00Z' }), []);
  });

  it('reads $id as a plain id, as _id, and no longer name', () => {
    for (const name of ['$id', '_id', 'id', '$uuid']) assert.ok(PLAIN_ID.test(name), name);
    for (const name of ['$ids', 'id$', '$ref', 'user$id']) assert.ok(!PLAIN_ID.test(name), name);
  });
});
