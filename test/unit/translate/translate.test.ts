/**
 * Translators (core/translate/): payloads as exports write them become events the gateway accepts.
 * A messy CSV (BOM, CRLF, quoted commas and quotes, decimal commas, a date pattern, a bad row),
 * Latin-1, JSON bodies with records and inherited fields, NDJSON with blank and broken lines;
 * stable ids for a re-sent payload; the apply-time checks; and property tests: no input, however
 * arbitrary, makes the translator or the definition validator throw.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileDefinition } from '../../../core/definitions/event-validator.ts';
import { normalizeEvent, normalizeOptions } from '../../../core/event.ts';
import { instant, readPattern } from '../../../core/formats/patterns.ts';
import { translate } from '../../../core/translate/index.ts';
import { translatorViolations } from '../../../core/translate/spec.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';

const CSV_SPEC: TranslatorSpec = {
  event: 'quote_requested',
  format: { type: 'csv' },
  key: ['Order'],
  fields: [
    { target: 'order_id', source: 'Order' },
    { target: 'user.email', source: 'E-Mail', transforms: ['trim', 'lowercase'] },
    { target: 'amount', source: 'Amount', transforms: [{ decimal: ',' }] },
    {
      target: 'event_time',
      source: 'Date',
      transforms: [{ timestamp: 'DD.MM.YYYY HH:mm', zone: 'Europe/Berlin' }],
    },
    { target: 'product', source: 'Product' },
    { target: 'express', source: 'Express', transforms: ['boolean'], default: false },
  ],
};
const MESSY = [
  '\uFEFFOrder,E-Mail,Amount,Date,Product,Express',
  'Q-1, Ana@Example.com ,"1.234,50",03.03.2026 09:30,"Roof tiles, red",ja',
  'Q-2,ben@example.com,"99,90",29.03.2026 02:30,"Door ""Oak""",',
  'Q-3,cy@example.com,abc,31.02.2026 10:00,Window,nein',
  'Q-4,dee@example.com,12,01.07.2026 12:00,Gutter',
  '',
].join('\r\n');

const utf8 = (s: string) => new TextEncoder().encode(s);
const run = (spec: TranslatorSpec, body: string | Uint8Array, type: string, extra = {}) =>
  translate({
    translator: 'quotes-csv',
    spec,
    eventName: spec.event,
    body: typeof body === 'string' ? utf8(body) : body,
    contentType: type,
    ...extra,
  });

const ctx = {
  options: normalizeOptions({ name: 'test', project: 'test-project', region: 'europe-west1' }),
  now: Date.parse('2026-07-02T00:00:00.000Z'),
  newId: () => 'minted',
};

describe('translators: CSV', () => {
  it('reads a messy export: BOM, CRLF, quotes, decimal commas, a date pattern in a time zone', () => {
    const r = run(CSV_SPEC, MESSY, 'text/csv');
    assert.ok(r.ok);
    assert.equal(r.total, 4);
    const [q1, q2, q4] = r.rows;
    assert.deepEqual(q1?.event, {
      event_name: 'quote_requested',
      order_id: 'Q-1',
      user: { email: 'ana@example.com' },
      amount: 1234.5,
      event_time: '2026-03-03T08:30:00.000Z',
      product: 'Roof tiles, red',
      express: true,
      event_id: q1?.event['event_id'],
    });
    assert.equal(q2?.event['product'], 'Door "Oak"');
    assert.equal(q2?.event['express'], false, 'an empty cell takes the default');
    // 02:30 on the night clocks go forward in Berlin does not exist: read as 03:30 CEST.
    assert.equal(q2?.event['event_time'], '2026-03-29T01:30:00.000Z');
    assert.equal(q4?.row, 3);
    assert.equal(q4?.event['express'], false, 'a short record: the missing cell is absent');
    assert.deepEqual(r.problems, [
      { field: 'rows[2].amount', description: 'expected a number with "," as the decimal mark, got "abc"' },
      {
        field: 'rows[2].event_time',
        description: 'expected a date and time like DD.MM.YYYY HH:mm, got "31.02.2026 10:00"',
      },
    ]);
    for (const row of r.rows) {
      const n = normalizeEvent(row.event, ctx);
      assert.ok(n.ok, JSON.stringify(n));
    }
  });

  it('gives a re-sent file the same ids, and different rows different ones', () => {
    const a = run(CSV_SPEC, MESSY, 'text/csv');
    const b = run(CSV_SPEC, `${MESSY}Q-5,eve@example.com,1,02.07.2026 10:00,Tile,\r\n`, 'text/csv');
    assert.ok(a.ok && b.ok);
    const ids = a.rows.map((r) => r.event['event_id']);
    assert.deepEqual(
      b.rows.slice(0, 3).map((r) => r.event['event_id']),
      ids,
      'the key makes the id: appending a row keeps the others',
    );
    assert.equal(new Set(b.rows.map((r) => r.event['event_id'])).size, 4);
    assert.match(String(ids[0]), /^[0-9a-f]{32}$/);
    const { key: _key, ...noKey } = CSV_SPEC;
    const c = run(noKey, MESSY, 'text/csv');
    const d = run(noKey, MESSY, 'text/csv');
    const e = run(noKey, MESSY, 'text/csv', { idempotencyKey: 'upload-7' });
    assert.ok(c.ok && d.ok && e.ok);
    assert.deepEqual(
      c.rows.map((r) => r.event['event_id']),
      d.rows.map((r) => r.event['event_id']),
      'without a key: the body digest and the row number',
    );
    assert.notDeepEqual(
      c.rows.map((r) => r.event['event_id']),
      e.rows.map((r) => r.event['event_id']),
    );
  });

  it('reads Latin-1 when declared, headerless files with their columns, and refuses what it cannot read', () => {
    const latin1 = Uint8Array.from(
      [...'Order;Product\nQ-9;Br'].map((c) => c.charCodeAt(0)).concat([0xfc, 0x63, 0x6b, 0x65]),
    );
    const spec: TranslatorSpec = {
      event: 'quote_requested',
      format: { type: 'csv', delimiter: ';', charset: 'latin1' },
      fields: [{ target: 'product', source: 'Product' }],
    };
    const r = run(spec, latin1, 'text/csv');
    assert.ok(r.ok);
    assert.equal(r.rows[0]?.event['product'], 'Brücke');
    const strict = run({ ...spec, format: { type: 'csv', delimiter: ';' } }, latin1, 'text/csv');
    assert.ok(!strict.ok);
    assert.match(strict.violations[0]?.description ?? '', /not UTF-8/);
    const declared = run(
      { ...spec, format: { type: 'csv', delimiter: ';' } },
      latin1,
      'text/csv; charset=iso-8859-1',
    );
    assert.ok(declared.ok, 'a charset in the Content-Type wins');

    const headerless: TranslatorSpec = {
      event: 'quote_requested',
      format: { type: 'csv', header: false, columns: ['id', 'amount'] },
      fields: [
        { target: 'order_id', source: 'id' },
        { target: 'amount', source: 'amount', transforms: ['number'] },
      ],
    };
    const h = run(headerless, 'A,1.5\nB,2,extra\n', 'text/csv');
    assert.ok(h.ok);
    assert.equal(h.rows[0]?.event['amount'], 1.5);
    assert.match(h.problems[0]?.field ?? '', /^rows\[1\]$/, 'a record with an extra cell is not the row');
    assert.ok(!run(headerless, '', 'text/csv').ok);
    const wrong = run(headerless, 'A,1', 'application/json');
    assert.ok(!wrong.ok);
    assert.match(wrong.violations[0]?.description ?? '', /reads text\/csv, got application\/json/);
  });
});

describe('translators: JSON and NDJSON', () => {
  it('reads records inside an object, with fields every record inherits', () => {
    const spec: TranslatorSpec = {
      event: 'page_view',
      format: { type: 'json', records: 'events', inherit: ['client_id'] },
      fields: [
        { target: 'event_name', source: 'name', transforms: [{ lookup: { view_item: 'view_content' } }] },
        { target: 'anonymous_id', source: 'client_id' },
        { target: 'page.url', source: 'params.page_location' },
        { target: 'content_name', source: 'params.item_name' },
      ],
    };
    const body = JSON.stringify({
      client_id: '123.456',
      events: [
        { name: 'page_view', params: { page_location: 'https://shop.example/' } },
        { name: 'view_item', params: { page_location: 'https://shop.example/p', item_name: 'Shoe' } },
      ],
    });
    const r = run(spec, body, 'application/json');
    assert.ok(r.ok);
    assert.deepEqual(
      r.rows.map((x) => [
        x.event['event_name'],
        x.event['anonymous_id'],
        (x.event['page'] as { url: string }).url,
      ]),
      [
        ['page_view', '123.456', 'https://shop.example/'],
        ['view_content', '123.456', 'https://shop.example/p'],
      ],
    );
    const notThere = run(spec, JSON.stringify({ client_id: 'x' }), 'application/json');
    assert.ok(!notThere.ok);
    assert.match(notThere.violations[0]?.description ?? '', /expected a list at events/);
  });

  it('reads NDJSON line by line: blank lines skipped, a broken line is its row', () => {
    const spec: TranslatorSpec = {
      event: 'lead',
      format: { type: 'ndjson' },
      fields: [{ target: 'user.email', source: 'email' }],
    };
    const r = run(
      spec,
      '{"email":"a@example.com"}\n\n{"email":\n{"email":"b@example.com"}\n',
      'application/x-ndjson',
    );
    assert.ok(r.ok);
    assert.equal(r.total, 3);
    assert.deepEqual(
      r.rows.map((x) => x.row),
      [0, 2],
    );
    assert.match(r.problems[0]?.field ?? '', /^rows\[1\]$/);
    assert.match(r.problems[0]?.description ?? '', /line 3/);
  });
});

describe('translators: patterns and apply-time checks', () => {
  it('reads date patterns, offsets and two-digit years', () => {
    const parts = readPattern('2026-01-02T03:04:05.5+01:00', 'YYYY-MM-DDTHH:mm:ss.SSSZ');
    assert.ok(parts);
    assert.equal(instant(parts), Date.parse('2026-01-02T02:04:05.500Z'));
    assert.deepEqual(readPattern('3/7/26', 'M/D/YY')?.y, 2026);
    assert.equal(readPattern('29.02.2025', 'DD.MM.YYYY'), undefined, 'not a real day');
    assert.equal(readPattern('10:00', 'HH:mm'), undefined, 'no date in it');
  });

  it('checks a spec on apply: sources, targets, patterns, zones, and the key rule', () => {
    const problems = translatorViolations(
      {
        event: 'quote_requested',
        format: { type: 'csv' },
        key: ['Order'],
        fields: [
          { target: 'amount', source: 'A', value: 1 },
          { target: 'amount', source: 'B' },
          { target: 'received_at', source: 'C' },
          { target: 'when', source: 'D', transforms: [{ date: 'DD.MM' }] },
          {
            target: 'at',
            source: 'E',
            transforms: [{ timestamp: 'DD.MM.YYYY HH:mm', zone: 'Mars/Olympus' }],
          },
          // The key makes the event_id: mapping it too is refused (a key needs no event_time).
          { target: 'event_id', source: 'F' },
        ],
      },
      'spec',
    );
    assert.deepEqual(
      problems.map((p) => p.field),
      [
        'spec.fields[0]',
        'spec.fields[1].target',
        'spec.fields[2].target',
        'spec.fields[3].transforms[0].date',
        'spec.fields[4].transforms[0].zone',
        'spec.key',
      ],
    );
    assert.match(translatorViolations({ event: 'x', format: 'csv' }, 'spec')[0]?.field ?? '', /^spec\./);
    assert.deepEqual(translatorViolations(CSV_SPEC, 'spec'), []);
  });
});

describe('translators and definitions never throw (property tests)', () => {
  const fields = compileDefinition([
    { name: 'amount', type: 'number', required: true, minimum: 0 },
    { name: 'tags', type: 'array', items: 'string' },
    { name: 'address', type: 'object', fields: [{ name: 'city', type: 'string', format: 'email' }] },
    { name: 'on', type: 'date' },
  ]);

  it('the definition validator answers violations for any value', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const v = fields(value);
        return (
          Array.isArray(v) && v.every((x) => typeof x.field === 'string' && typeof x.description === 'string')
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('the translator answers rows or a structured refusal for any bytes, in every format', () => {
    const specs: TranslatorSpec[] = [
      CSV_SPEC,
      {
        event: 'lead',
        format: { type: 'ndjson' },
        fields: [{ target: 'x', source: 'a.b', transforms: ['number'] }],
      },
      {
        event: 'lead',
        format: { type: 'json', records: 'r' },
        fields: [{ target: 'when', source: 'd', transforms: [{ date: 'YYYY-MM-DD' }, { split: ',' }] }],
      },
    ];
    const types = ['text/csv', 'application/x-ndjson', 'application/json'];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 }),
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.string({ maxLength: 300 }).map(utf8),
          fc.json().map(utf8),
        ),
        (i, body) => {
          const r = run(specs[i] as TranslatorSpec, body, types[i] as string);
          return r.ok
            ? r.rows.every((x) => typeof x.event === 'object') &&
                r.problems.every((p) => p.field.startsWith('rows['))
            : r.violations.length > 0;
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('apply-time checks answer violations for any spec', () => {
    fc.assert(
      fc.property(fc.anything(), (spec) => Array.isArray(translatorViolations(spec, 'spec'))),
      { numRuns: 1000 },
    );
  });
});
