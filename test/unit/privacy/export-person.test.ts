/**
 * The access request's queries (core/privacy/export-person.ts), as text: read-only, the person's
 * identifiers only ever parameters, the identity tables only when the identity graph exists, and
 * the raw texts looked for in refused payloads.
 */
import assert from 'node:assert/strict';
import {
  exportLine,
  exportPersonQueries,
  POSSIBLE_DAYS,
  POSSIBLE_ROWS,
  possibleFields,
} from '../../../core/privacy/export-person.ts';
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
        'events.events (possible)',
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
      if (q.possible) continue;
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
      exportLine({ table: 'events.events' }, { event_id: 'e1' }),
      '{"table":"events.events","row":{"event_id":"e1"}}',
    );
  });

  it('"possible" rows: one bounded, parameterised scan for the e-mail or phone in event_data (#75)', () => {
    const q = queries.find((x) => x.possible);
    assert.ok(q);
    assert.equal(q.table, 'events.events (possible)');
    // Bounded: the partitions of the last POSSIBLE_DAYS days, at most POSSIBLE_ROWS rows.
    assert.match(
      q.sql,
      new RegExp(`event_time >= TIMESTAMP_SUB\\(CURRENT_TIMESTAMP\\(\\), INTERVAL ${POSSIBLE_DAYS} DAY\\)`),
    );
    assert.match(q.sql, new RegExp(`LIMIT ${POSSIBLE_ROWS}$`));
    // Not the events already exported by an identifier column (a NULL column counts as no match).
    assert.match(q.sql, /AND NOT IFNULL\(CONCAT\('anonymous_id:'/);
    assert.match(q.sql, /REGEXP_CONTAINS\(TO_JSON_STRING\(event_data\), p\)/);
    assert.deepEqual(q.params['identifiers'], [HOSTILE, 'email:ann@example.com']);
    assert.ok((q.params['patterns'] ?? []).some((p) => p.includes('ann@example\\.com')));
    assert.deepEqual(q.types, { identifiers: ['STRING'], patterns: ['STRING'] });
    // A person named by no e-mail or phone gives no such search.
    assert.ok(!exportPersonQueries(OPTIONS, ['user_id:u-1'], []).some((x) => x.possible));
  });

  it('names the fields that hold the e-mail or phone as a whole value, and says "possible"', () => {
    const data = {
      form: { contact: 'Ann@Example.com', note: 'call ann@example.com.au' },
      items: [{ sku: 'A' }, { 'owner e-mail': 'ann@example.com' }],
      phone_backup: '+33 6 12 34 56 78',
      tel: 33612345678,
    };
    assert.deepEqual(possibleFields(data, ['ann@example.com', '+33 6 12 34 56 78']), [
      '$.event_data.form.contact',
      '$.event_data.items[1]["owner e-mail"]',
      '$.event_data.phone_backup',
      '$.event_data.tel',
    ]);
    assert.deepEqual(possibleFields(JSON.stringify(data), ['bob@example.com']), []);
    const line = JSON.parse(
      exportLine({ table: 'events.events (possible)', possible: ['ann@example.com'] }, { event_data: data }),
    ) as Record<string, unknown>;
    assert.equal(line['table'], 'events.events');
    assert.equal(line['match'], 'possible');
    assert.deepEqual(line['fields'], ['$.event_data.form.contact', '$.event_data.items[1]["owner e-mail"]']);
  });
});
