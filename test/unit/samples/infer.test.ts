/** core/samples/infer.ts: field types, formats and patterns from every row of a sample, and the spec fields they make. */
import assert from 'node:assert/strict';
import { definitionViolations } from '../../../core/definitions/definitions.ts';
import { type InferredField, inferFields, toFieldSpecs } from '../../../core/samples/infer.ts';
import { parseSample } from '../../../core/samples/parse.ts';

/** Infers one column from its values (CSV cells are strings; other values as JSON gives them). */
function one(values: unknown[], name = 'x', delimiter?: string): InferredField {
  const rows = values.map((v) => (v === undefined ? {} : { [name]: v }));
  const [field] = inferFields({ columns: [name], rows, ...(delimiter ? { delimiter } : {}) });
  return field as InferredField;
}

const kind = (f: InferredField) => [f.type, f.format ?? f.pattern ?? ''].filter((x) => x !== '').join(' ');

describe('samples: inferring a column', () => {
  const cases: [string, unknown[], string][] = [
    ['integers', ['1', '-20', '300'], 'integer'],
    ['integers and decimals make numbers', ['1', '2.5', '-3'], 'number'],
    ['exponents', ['1e3', '2.5E-2'], 'number'],
    ['decimal commas', ['12,50', '0,99', '3'], 'number decimal_comma'],
    ['thousands dots with a decimal comma', ['1.234,56', '12,00'], 'number decimal_comma'],
    ['thousands commas with a decimal point', ['1,234.56', '12.00', '1,000,000'], 'number'],
    ['thousands commas, integers', ['1,234,567', '12'], 'integer'],
    ['leading zeros stay text', ['01067', '80331'], 'string'],
    ['true/false words', ['true', 'FALSE', 'yes', 'no'], 'boolean'],
    ['words and 0/1 together', ['ja', 'nein', '1', '0'], 'boolean'],
    ['0/1 alone are integers', ['0', '1', '1', '0'], 'integer'],
    ['RFC 3339', ['2024-03-01T12:00:00Z', '2024-03-01T12:00:00.123+01:00'], 'timestamp RFC 3339'],
    [
      'space-separated date-times',
      ['2024-03-01 12:00:00', '2024-12-31 23:59:59'],
      'timestamp YYYY-MM-DD HH:mm:ss',
    ],
    ['mixed ISO 8601 shapes', ['2024-03-01T12:00Z', '2024-03-01 12:00:00'], 'timestamp ISO 8601'],
    ['German date-times', ['01.03.2024 12:00', '31.12.2024 08:30'], 'timestamp DD.MM.YYYY HH:mm'],
    ['ISO dates', ['2024-03-01', '2024-02-29'], 'date YYYY-MM-DD'],
    ['German dates', ['01.03.2024', '1.4.2024'], 'date DD.MM.YYYY'],
    ['slashes, a day above 12 first', ['03/01/2024', '13/01/2024'], 'date DD/MM/YYYY'],
    ['slashes, a day above 12 second', ['03/01/2024', '01/13/2024'], 'date MM/DD/YYYY'],
    ['slashes, undecided: month first', ['03/01/2024', '01/02/2024'], 'date MM/DD/YYYY'],
    ['year first with slashes', ['2024/03/01'], 'date YYYY/MM/DD'],
    ['not a real day', ['2023-02-29', '2024-13-01'], 'string'],
    ['e-mail addresses', ['anna@example.com', 'b.c+tag@sub.example.co.uk'], 'string email'],
    ['URLs', ['https://example.com/a?b=c', 'http://localhost:8080/'], 'string url'],
    ['phone numbers', ['+49 170 1234567', '0170/1234567', '(030) 123-4567'], 'string phone'],
    [
      'UUIDs',
      ['0b4e2a52-1c5f-4c7e-9a43-0f3e6c9a1b2d', '4E3C1A00-0000-4000-8000-000000000000'],
      'string uuid',
    ],
    ['currency codes', ['EUR', 'USD', 'CHF'], 'string currency'],
    ['country codes', ['DE', 'at', 'FR'], 'string country'],
    ['three capitals that are not currencies', ['EUR', 'ABC'], 'string'],
    ['JSON arrays and objects', [[1, 2], { a: 1 }], 'json'],
    ['JSON in CSV cells', ['{"a":1}', '[1,2]'], 'json'],
    ['JSON numbers', [1, 2.5], 'number'],
    ['JSON booleans', [true, false], 'boolean'],
    ['IP addresses are not phone numbers', ['192.168.100.1', '10.0.0.1'], 'string'],
    ['hostile cells', ['<script>alert(1)</script>', "=cmd|' /C calc'!A0", '@SUM(1)'], 'string'],
  ];
  for (const [what, values, expected] of cases) {
    it(`${what} → ${expected}`, () => assert.equal(kind(one(values)), expected));
  }

  it('reads currency codes in any case as currencies only under a currency-like name (Stripe’s `usd`)', () => {
    for (const name of [
      'currency',
      'currency_code',
      'presentmentCurrency',
      'data.object.currency',
      'Währung',
    ]) {
      const f = one(['usd', 'eur', 'EUR'], name);
      // Judged as the translator stores it, upper-cased: the format holds, it is not loose.
      assert.deepEqual([kind(f), f.loose, f.enum], ['string currency', undefined, undefined], name);
    }
    // Elsewhere lower-case codes are words (`all`, `top`, `mad` are codes too); capitals keep today's rule.
    assert.equal(kind(one(['mad', 'all', 'top', 'mad'], 'mood')), 'string');
    assert.equal(kind(one(['usd', 'eur'], 'code')), 'string');
    assert.equal(kind(one(['usd', 'eur'], 'currency_rate')), 'string');
    assert.equal(kind(one(['USD', 'EUR'], 'code')), 'string currency');
    // Padded cells are stored trimmed: the format holds.
    const padded = one([' usd', 'EUR '], 'currency');
    assert.deepEqual([kind(padded), padded.loose], ['string currency', undefined]);
    // Not codes under a currency name stay text.
    assert.equal(kind(one(['usd', 'dollars'], 'currency')), 'string');
  });

  it('keeps a lower-case `mad` in a mood column text beside a lower-case currency column', () => {
    const parsed = parseSample('mood,currency\nmad,usd\nglad,mad\nmad,eur\nglad,usd\n');
    const [mood, currency] = inferFields(parsed);
    assert.deepEqual([mood?.type, mood?.format, mood?.enum], ['string', undefined, ['mad', 'glad']]);
    assert.deepEqual([currency?.type, currency?.format, currency?.loose], ['string', 'currency', undefined]);
    const [spec] = toFieldSpecs([currency as InferredField]);
    assert.equal(spec?.format, 'currency');
  });

  it('reads epoch seconds and milliseconds as timestamps only under a time-like name', () => {
    assert.equal(kind(one(['1709294400', '1709298000'], 'created_at')), 'timestamp epoch_seconds');
    assert.equal(kind(one([1709294400000, 1709298000000], 'ts')), 'timestamp epoch_millis');
    assert.equal(kind(one(['1709294400', '1709298000'], 'order_number')), 'integer');
    assert.equal(kind(one(['12', '1709298000'], 'time')), 'integer');
  });

  it('reads 0/1 as boolean under a flag-like name', () => {
    assert.equal(one(['0', '1'], 'is_member').type, 'boolean');
    assert.equal(one(['0', '1'], 'newsletter_opt_in').type, 'boolean');
  });

  it('prefers the decimal comma for ambiguous numbers when the delimiter is a semicolon', () => {
    assert.equal(kind(one(['1.234', '5.678'])), 'number');
    assert.equal(kind(one(['1.234', '5.678'], 'x', ';')), 'integer decimal_comma');
    assert.equal(kind(one(['1,5', '2,25'], 'x', ',')), 'number decimal_comma');
  });

  it('marks empty cells, nulls and missing keys as nullable without a vote', () => {
    const f = one(['1', '', '  ', 'NULL', null, undefined, '2']);
    assert.equal(f.type, 'integer');
    assert.equal(f.nullable, true);
    assert.equal(one(['1', '2']).nullable, false);
    assert.deepEqual([one(['', null]).type, one(['', null]).nullable], ['string', true]);
  });

  it('lists the rows that do not fit when at least 95% do', () => {
    const values = Array.from({ length: 40 }, (_, i) => String(i));
    values[7] = 'n/a';
    values[30] = '';
    const f = one(values);
    assert.equal(f.type, 'integer');
    assert.deepEqual(f.invalid, [7]);
    values[8] = 'unknown';
    assert.equal(one(values).type, 'string');
    assert.equal(one(values).invalid, undefined);
  });

  it('lists low-cardinality text as an enum; not for many distinct values or few rows', () => {
    const tiers = ['gold', 'silver', 'gold', 'bronze', 'silver', 'gold'];
    assert.deepEqual(one(tiers).enum, ['gold', 'silver', 'bronze']);
    assert.equal(one(['gold', 'silver', 'bronze']).enum, undefined);
    const names = Array.from({ length: 40 }, (_, i) => `name ${i % 11}`);
    assert.equal(one(names).enum, undefined);
    assert.equal(one(['EUR', 'USD', 'EUR', 'USD']).enum, undefined);
  });

  it('gives up to three distinct examples and the distinct count', () => {
    const f = one(['b', 'a', 'b', 'c', 'd', '']);
    assert.deepEqual(f.examples, ['b', 'a', 'c']);
    assert.equal(f.distinct, 4);
  });

  it('infers a whole German export', () => {
    const p = parseSample(
      '\ufeffE-Mail;Betrag;Datum;Land;Währung;Notiz\r\n' +
        'anna@example.de;12,50;01.03.2024;DE;EUR;<script>x</script>\r\n' +
        'ben@example.de;1.234,00;13.03.2024;AT;EUR;"=cmd|\' /C calc\'!A0"\r\n' +
        ';;;;;\r\n',
    );
    assert.deepEqual(
      inferFields(p).map((f) => `${f.name}: ${kind(f)}`),
      [
        'E-Mail: string email',
        'Betrag: number decimal_comma',
        'Datum: date DD.MM.YYYY',
        'Land: string country',
        'Währung: string currency',
        'Notiz: string',
      ],
    );
  });
});

describe('samples: spec fields from inferred columns', () => {
  const sample = parseSample(
    JSON.stringify([
      {
        'E-Mail': 'anna@example.com',
        user: { email: 'a@example.com', address: { city: 'Köln', geo: { lat: { deg: 50 } } } },
        tier: 'gold',
        Betrag: '12,50',
        tags: ['a'],
        '1st visit': '2024-03-01',
        e_mail: 'x',
      },
      { 'E-Mail': 'ben@example.com', user: { email: 'b@example.com' }, tier: 'gold', Betrag: '3', tags: [] },
    ]),
  );
  const fields = toFieldSpecs(inferFields(sample));

  it('makes fields that definitionViolations accepts', () => {
    assert.deepEqual(definitionViolations({ fields }, 'spec'), []);
    assert.deepEqual(
      definitionViolations({ fields: toFieldSpecs(inferFields(sample), { required: true }) }, 'spec'),
      [],
    );
  });

  it('renames columns to field names and nests dotted paths as objects', () => {
    assert.deepEqual(
      fields.map((f) => f.name),
      // `user` is a context field of every event: as event data it is `user_data`.
      ['e_mail', 'user_data', 'tier', 'betrag', 'tags', 'f_1st_visit', 'e_mail_2'],
    );
    const user = fields[1];
    assert.equal(user?.type, 'object');
    assert.deepEqual(
      user?.fields?.map((f) => f.name),
      ['email', 'address'],
    );
    // Four levels at most: user.address.geo.lat.deg keeps its last two names as one.
    assert.deepEqual(user?.fields?.[1]?.fields?.[1]?.fields?.[0], { name: 'lat_deg', type: 'integer' });
  });

  it('carries formats, enums, patterns and PII over; required only when asked, for never-empty columns', () => {
    assert.deepEqual(fields[0], { name: 'e_mail', type: 'string', format: 'email', pii: true });
    assert.deepEqual(fields[2], { name: 'tier', type: 'string', enum: ['gold'] });
    assert.deepEqual(fields[3], {
      name: 'betrag',
      type: 'number',
      description: 'The sample writes it as decimal_comma',
    });
    assert.equal(fields[4]?.type, 'json');
    const required = toFieldSpecs(inferFields(sample), { required: true });
    assert.equal(required[0]?.required, true);
    assert.equal(required[5]?.required, undefined);
  });

  it('flattens a dotted column whose parent is itself a column', () => {
    const f = toFieldSpecs([
      { name: 'buyer', type: 'string', nullable: false, examples: [], distinct: 1 },
      { name: 'buyer.email', type: 'string', format: 'email', nullable: false, examples: [], distinct: 1 },
      { name: 'source', type: 'string', nullable: false, examples: [], distinct: 1 },
    ]);
    assert.deepEqual(
      f.map((x) => x.name),
      ['buyer', 'buyer_email', 'source_data'],
    );
    assert.deepEqual(definitionViolations({ fields: f }, 'spec'), []);
  });
});
