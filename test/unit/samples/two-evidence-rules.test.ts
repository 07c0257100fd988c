/**
 * The rules of core/samples/two-evidence.ts one by one (docs/testing.md, its mutation run): which
 * numbers are instants and not amounts (the ranges' ends, whole numbers, digits written as text,
 * dates and times, every row), each actor a person's detail is never taken from, each word a
 * country's name has, and which columns thin evidence asks about.
 */
import assert from 'node:assert/strict';
import { timeShapedAmount } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import type { QuestionColumn } from '../../../core/samples/questions.ts';
import type { InferredField } from '../../../core/samples/sample.ts';
import { actorAbove, countryEvidence, thinEvidenceQuestions } from '../../../core/samples/two-evidence.ts';

const field = (name: string, examples: unknown[], extra: Partial<InferredField> = {}): InferredField => ({
  name,
  type: 'integer',
  examples,
  distinct: examples.length,
  nullable: false,
  ...extra,
});

describe('creator: an amount is not a time, rule by rule', () => {
  it('reads digits written as text (a CSV cell) as the number they are', () => {
    const sample = parseSample(
      'id,changed_value,currency\nsub_1,1751328000000,USD\nsub_2,1751328100000,USD\n',
    );
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.equal(g.value, undefined);
    assert.match(
      g.columns.find((c) => c.column === 'changed_value')?.why ?? '',
      /epoch milliseconds, not an amount/,
    );
    assert.match(
      timeShapedAmount(field('total', ['1751328000000', ' 1751328000001 '])) ?? '',
      /milliseconds/,
    );
    assert.equal(timeShapedAmount(field('total', ['1751328000000', '17.5e11'])), undefined);
  });
});

describe('creator: an instant’s range and name, rule by rule', () => {
  const ms = (name: string, v: number[], extra: Partial<InferredField> = {}) =>
    timeShapedAmount(field(name, v, extra));

  it('takes epoch milliseconds from 2001-09-09 to 2099-12-31, both ends included', () => {
    assert.match(ms('total', [1e12]) ?? '', /milliseconds/);
    assert.match(ms('total', [4102444800000]) ?? '', /milliseconds/);
    assert.equal(ms('total', [1e12 - 1]), undefined);
    assert.equal(ms('total', [4102444800001]), undefined);
  });

  it('takes epoch seconds in the same range under any name, every value', () => {
    for (const name of ['changed_amount', 'total', 'value', 'order.total', 'flat_total'])
      assert.match(ms(name, [1e9]) ?? '', /epoch seconds/, name);
    assert.match(ms('value', [4102444800]) ?? '', /epoch seconds/);
    assert.match(ms('value', [1751328000]) ?? '', /\(1751328000, 2025-07-01T00:00:00\.000Z\)/);
    assert.equal(ms('value', [1e9 - 1]), undefined);
    assert.equal(ms('value', [4102444801]), undefined);
    assert.equal(ms('value', [1700000000, 2500]), undefined, 'every value, not some');
  });

  it('reads dates and times as times, and every row’s value when the rows are given', () => {
    assert.match(
      ms('amount', [], { type: 'timestamp', examples: ['2026-01-01T10:00:00Z'] }) ?? '',
      /are times/,
    );
    assert.match(ms('value', [], { type: 'date', examples: ['2026-01-01'] }) ?? '', /are times/);
    // The examples are three values at most: the rows say whether every one is a time.
    const total = field('total', [1751328000000, 1751328000001, 1751328000002]);
    const rows = [1751328000000, 1751328000001, 1751328000002, 2500].map((total) => ({ total }));
    assert.match(timeShapedAmount(total) ?? '', /milliseconds/);
    assert.equal(timeShapedAmount(total, rows), undefined);
    assert.equal(
      timeShapedAmount(total, [{ total: null }, { total: 1751328000000 }])?.includes('milliseconds'),
      true,
    );
  });

  it('takes only whole numbers, in a column of integers with values', () => {
    assert.equal(ms('total', [1751328000000.5]), undefined);
    assert.equal(ms('total', [1751328000000], { type: 'number' }), undefined);
    assert.equal(ms('total', []), undefined);
  });
});

describe('creator: a person’s detail is never an actor’s, rule by rule', () => {
  it('names each object that is the business’s or who acted for it', () => {
    for (const actor of [
      'owner',
      'agent',
      'assignee',
      'assignedTo',
      'account',
      'merchant',
      'organizer',
      'organiser',
      'host',
      'seller',
      'payee',
      'staff',
      'admin',
      'employee',
      'operator',
      'salesperson',
      'created_by',
      'updatedBy',
      'modified_by',
      'closed_by',
      'deleted_by',
      'creator',
    ])
      assert.equal(
        actorAbove(`ticket.${actor}.email`),
        `inside ${actor}: the business's side, or who acted for it, not the person's`,
      );
  });

  it('reads only the objects above a column, not its own name', () => {
    assert.equal(actorAbove('ticket.owner'), undefined);
    assert.equal(actorAbove('merchant'), undefined);
  });
});

describe('creator: a country’s name and codes, rule by rule', () => {
  const country = (name: string) =>
    countryEvidence(field(name, ['DE'], { type: 'string', format: 'country' }));

  it('takes each word a country’s name has, in any word of the leaf', () => {
    for (const name of [
      'country',
      'countrycode',
      'country_code',
      'billing_country',
      'land',
      'pays',
      'pais',
      'paese',
      'nazione',
      'staat',
    ])
      assert.equal(country(name), undefined, name);
  });

  it('reads only the column’s own name, and says which kind of evidence is missing', () => {
    assert.equal(
      country('shipping_country.flagged_by'),
      'its values are two-letter codes a country could have, but nothing in its name says country',
    );
    assert.equal(
      countryEvidence(field('country', ['Germany'], { type: 'string' })),
      'its name says country, but its values are not ISO 3166-1 alpha-2 codes',
    );
  });
});

describe('creator: what thin evidence asks, rule by rule', () => {
  const column = (name: string, target: string, extra: Partial<InferredField> = {}): QuestionColumn => ({
    field: field(name, ['x'], { type: 'string', ...extra }),
    target,
    role: { role: 'person', why: '' },
    alone: target,
  });
  const asks = (columns: QuestionColumn[], asked: string[] = []) =>
    thinEvidenceQuestions(columns, new Set(asked)).map((q) => [q.target, q.ask]);

  it('asks about a record’s user as the person’s id or external id, and not as another target', () => {
    assert.deepEqual(
      asks([column('deal.user.id', 'user_id'), column('ticket.users.id', 'user.external_id')]),
      [
        [
          'user_id',
          "Is deal.user.id the person's id? It is shaped as one, but it sits in a record, whose user it may be.",
        ],
        [
          'user.external_id',
          "Is ticket.users.id the person's id? It is shaped as one, but it sits in a record, whose user it may be.",
        ],
      ],
    );
    assert.deepEqual(asks([column('deal.user.email', 'user.email')]), []);
  });

  it('asks about a country with one kind of evidence, its reason as a sentence', () => {
    assert.deepEqual(asks([column('flagged_by', 'user.country', { format: 'country' })]), [
      [
        'user.country',
        "Is flagged_by the person's country? Its values are two-letter codes a country could have, but nothing in its name says country.",
      ],
    ]);
  });

  it('asks nothing about a column another question already offers', () => {
    assert.deepEqual(
      asks(
        [column('deal.user.id', 'user_id'), column('flagged_by', 'user.country', { format: 'country' })],
        ['deal.user.id', 'flagged_by'],
      ),
      [],
    );
  });
});
