/**
 * The access request's queries (core/privacy/export-person.ts), as text: read-only, the person's
 * identifiers only ever parameters, the identity tables only when the identity graph exists, and
 * the raw texts looked for in refused payloads.
 */
import assert from 'node:assert/strict';
import { exportLine, exportPersonQueries } from '../../../core/privacy/export-person.ts';
import { rawNeedles } from '../../../core/privacy/person.ts';

const OPTIONS = { project: 'p-1', dataset: 'events', identityGraph: true };
const HOSTILE = "user_id:x' OR TRUE --";

describe('export-person: the queries of an access request', () => {
  const queries = exportPersonQueries(OPTIONS, [HOSTILE, 'email:ann@example.com'], ['ann@example.com']);

  it('reads every table that holds the person, named <dataset>.<table>', () => {
    assert.deepEqual(
      queries.map((q) => q.table),
      [
        'events.events',
        'events.invalid_events',
        'events.deliveries',
        'events.hook_failures',
        'events.sessions',
        'events.identity_map',
        'events.identity_merges',
      ],
    );
  });

  it('is read-only: each query one SELECT, nothing written', () => {
    for (const q of queries) {
      assert.match(q.sql, /^WITH\b/, q.table);
      assert.doesNotMatch(q.sql, /\b(INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|TRUNCATE|ALTER)\b|;/i, q.table);
    }
  });

  it('passes the identifiers as parameters, never in the SQL text', () => {
    for (const q of queries) {
      assert.ok(!q.sql.includes('ann@example.com') && !q.sql.includes('OR TRUE'), q.table);
      assert.deepEqual(q.params, {
        identifiers: [HOSTILE, 'email:ann@example.com'],
        raw: ['ann@example.com'],
      });
      assert.deepEqual(q.types, { identifiers: ['STRING'], raw: ['STRING'] });
    }
  });

  it('leaves the identity tables out when the models are off', () => {
    const off = exportPersonQueries({ ...OPTIONS, identityGraph: false }, ['user_id:u-1'], []);
    assert.deepEqual(
      off.map((q) => q.table),
      ['events.events', 'events.invalid_events', 'events.deliveries', 'events.hook_failures'],
    );
    for (const q of off) assert.doesNotMatch(q.sql, /identity_map|identity_merges/);
  });

  it('looks for an e-mail or a phone as given (an e-mail lower-case), not for ids or person ids', () => {
    assert.deepEqual(
      rawNeedles(['email: Ann@Example.COM ', 'phone:+33 6 12 34 56 78', 'user_id:u-1', 'a'.repeat(64)]),
      ['ann@example.com', '+33 6 12 34 56 78'],
    );
  });

  it('writes one JSON line per row: the table and the row', () => {
    assert.equal(
      exportLine('events.events', { event_id: 'e1' }),
      '{"table":"events.events","row":{"event_id":"e1"}}',
    );
  });
});
