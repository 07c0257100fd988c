/**
 * Per-type field rules (core/translate/cases.ts, docs/translators.md): `spec.cases` picks, per
 * record, the first case whose `when` matches (`equals` or `in`, on a body path or a header); its
 * fields replace the common fields of the same targets and add their own; a record no case matches
 * takes the common fields. Checked on apply like the common fields, with the case named.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { caseMatches, mergedFields } from '../../../core/translate/cases.ts';
import { translate } from '../../../core/translate/index.ts';
import { sourceViolations } from '../../../core/translate/sources.ts';
import { translatorEvents, translatorViolations } from '../../../core/translate/spec.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';
import { sourceCatalogue } from '../../support/source-catalogue.ts';

const BILLING = {
  event: 'billing_event',
  format: { type: 'json' },
  events: ['purchase', 'customer_created', 'billing_event'],
  fields: [
    { target: 'event_name', source: 'type', transforms: [{ lookup: { 'txn.completed': 'purchase' } }] },
    { target: 'transaction_id', source: 'data.transaction_id' },
    { target: 'user.external_id', source: 'data.customer_id' },
    { target: 'note', value: 'common' },
  ],
  cases: [
    {
      when: { source: 'type', in: ['txn.completed', 'txn.paid'] },
      fields: [{ target: 'transaction_id', source: 'data.id' }],
    },
    {
      when: { source: 'type', equals: 'customer.created' },
      fields: [
        { target: 'user.external_id', source: 'data.id' },
        { target: 'user.email', source: 'data.email' },
        { target: 'event_name', value: 'customer_created' },
      ],
    },
    // Never reached for customer.created: the first matching case wins.
    { when: { source: 'data.kind', equals: 'person' }, fields: [{ target: 'note', value: 'second' }] },
  ],
} as unknown as TranslatorSpec;

const run = (spec: TranslatorSpec, body: unknown, headers: Record<string, string> = {}) => {
  const r = translate({
    translator: 'billing',
    spec,
    eventName: spec.event,
    body: Buffer.from(JSON.stringify(body)),
    contentType: 'application/json',
    headers,
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.problems, []);
  return r.rows.map((x) => x.event);
};

describe('translate: per-type field rules (cases)', () => {
  it('gives each record the fields of the first case it matches, the common ones otherwise', () => {
    const [txn, customer, other] = run(BILLING, [
      { type: 'txn.completed', data: { id: 'txn_1', customer_id: 'ctm_1' } },
      { type: 'customer.created', data: { id: 'ctm_2', email: 'a@example.com', kind: 'person' } },
      { type: 'adjustment.created', data: { id: 'adj_1', transaction_id: 'txn_1', customer_id: 'ctm_1' } },
    ]);
    assert.deepEqual(
      [txn?.['event_name'], txn?.['transaction_id'], txn?.['user'], txn?.['note']],
      ['purchase', 'txn_1', { external_id: 'ctm_1' }, 'common'],
    );
    assert.equal(customer?.['event_name'], 'customer_created');
    assert.equal(customer?.['transaction_id'], undefined, 'a customer is no transaction');
    assert.deepEqual(customer?.['user'], { external_id: 'ctm_2', email: 'a@example.com' });
    assert.equal(customer?.['note'], 'common', 'the first matching case wins, not the later one');
    assert.equal(other?.['event_name'], 'adjustment.created');
    assert.equal(other?.['transaction_id'], 'txn_1');
  });

  it('matches a header, a number as text, and a fallback list of sources', () => {
    const spec = {
      event: 'hook',
      format: { type: 'json' },
      fields: [{ target: 'kind', value: 'common' }],
      cases: [
        {
          when: { source: 'header:X-Event', equals: 'sponsorship' },
          fields: [{ target: 'kind', value: 'h' }],
        },
        { when: { source: ['code', 'status'], in: [200, 'ok'] }, fields: [{ target: 'kind', value: 'n' }] },
      ],
    } as unknown as TranslatorSpec;
    assert.equal(run(spec, {}, { 'x-event': 'sponsorship' })[0]?.['kind'], 'h');
    assert.equal(run(spec, { code: '200' })[0]?.['kind'], 'n');
    assert.equal(run(spec, { status: 'ok' })[0]?.['kind'], 'n');
    assert.equal(run(spec, { code: 201, status: 'ok' })[0]?.['kind'], 'common');
    assert.equal(caseMatches({ source: 'a', equals: 'x' }, { a: { x: 1 } }, undefined, false), false);
    assert.equal(caseMatches({ source: 'a', equals: 'x' }, { a: ' ' }, undefined, true), false);
  });

  it('replaces a common field where it stands and appends the case’s own targets', () => {
    const merged = mergedFields(
      [
        { target: 'a', value: 1 },
        { target: 'b', value: 2 },
      ],
      [
        { target: 'c', value: 3 },
        { target: 'a', value: 9 },
      ],
    );
    assert.deepEqual(
      merged.map((f) => [f.target, f.value]),
      [
        ['a', 9],
        ['b', 2],
        ['c', 3],
      ],
    );
  });

  it('counts the events a case can name among the translator’s own', () => {
    const { events: _e, ...rest } = BILLING;
    const names = translatorEvents(rest as TranslatorSpec).names;
    assert.ok(names.has('customer_created'));
    assert.ok(names.has('purchase'));
  });

  it('checks a case on apply as it checks the common fields, naming the case', () => {
    const bad = {
      ...BILLING,
      events: undefined,
      key: ['id'],
      cases: [
        {
          when: { source: 'type', equals: 'x' },
          fields: [
            { target: 'event_id', source: 'id' },
            { target: 'event_time.day', source: 't' },
            { target: 'note', source: 'a', value: 'b' },
            { target: 'note', value: 'c' },
            { target: 'when', source: 'd', transforms: [{ date: 'QQ' }] },
          ],
        },
        { when: { source: 'header:Authorization', equals: 'x' }, fields: [{ target: 'n', value: 1 }] },
        { when: { source: 'type', in: [] }, fields: [{ target: 'n', value: 1 }] },
      ],
    };
    const fields = (v: unknown) => translatorViolations(v, 'spec').map((x) => `${x.field}: ${x.description}`);
    const shapeOnly = fields(bad);
    assert.ok(
      shapeOnly.some((t) => t.startsWith('spec.cases[2].when')),
      shapeOnly.join('\n'),
    );
    const problems = fields({ ...bad, cases: bad.cases.slice(0, 2) }).join('\n');
    assert.doesNotMatch(problems, /spec\.key: makes the event_id/, 'a case may name its own id');
    assert.match(problems, /spec\.cases\[0\]\.fields\[1\]\.target: event_time has no parts/);
    assert.match(problems, /spec\.cases\[0\]\.fields\[2\]: takes a value from a `source` or a constant/);
    assert.match(problems, /spec\.cases\[0\]\.fields\[3\]\.target: note is also cases\[0\]\.fields\[2\]/);
    assert.match(problems, /spec\.cases\[0\]\.fields\[4\]\.transforms\[0\]\.date/);
    assert.match(problems, /spec\.cases\[1\]\.when\.source: authorization carries a credential/);
    assert.match(problems, /spec\.events: fields\[0\] takes event_name from the payload/);
    assert.deepEqual(translatorViolations(BILLING, 'spec'), []);
  });

  it('takes a case’s own event_id beside a key, the key’s elsewhere; never a common one with it', () => {
    // Shopify: an order's id is its key's digest, a checkout's is its token; the numbers of the two
    // may be equal, and they must not fold.
    const spec = {
      event: 'purchase',
      format: { type: 'json' },
      events: ['purchase', 'begin_checkout'],
      key: [['gid', 'id']],
      fields: [
        {
          target: 'event_name',
          source: 'header:X-Topic',
          transforms: [{ lookup: { checkout: 'begin_checkout' } }],
        },
      ],
      cases: [
        {
          when: { source: 'header:X-Topic', equals: 'checkout' },
          fields: [{ target: 'event_id', source: ['token', 'id'], transforms: ['string'] }],
        },
      ],
    } as unknown as TranslatorSpec;
    assert.deepEqual(translatorViolations(spec, 'spec'), []);
    const [order] = run(spec, { id: 7 }, { 'x-topic': 'order' });
    const [checkout] = run(spec, { id: 7, token: 'tok_7' }, { 'x-topic': 'checkout' });
    const [bare] = run(spec, { id: 7 }, { 'x-topic': 'checkout' });
    assert.equal(checkout?.['event_id'], 'tok_7');
    assert.equal(bare?.['event_id'], '7');
    assert.match(String(order?.['event_id']), /^[0-9a-f]{32}$/);
    assert.equal(new Set([order?.['event_id'], checkout?.['event_id'], bare?.['event_id']]).size, 3);
    const common = translatorViolations(
      { ...spec, fields: [...spec.fields, { target: 'event_id', source: 'id' }] },
      'spec',
    );
    assert.match(JSON.stringify(common), /spec\.key.*makes the event_id: do not map event_id as well/);
  });

  it('accepts docs/translators.md’s Shopify header example, signed, and routes by its topic', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/translators.md'), 'utf8');
    const block = doc.split('### Header sources')[1]?.split('```yaml\n')[1]?.split('```')[0];
    assert.ok(block, 'the example');
    const spec = { event: 'purchase', format: { type: 'json' }, ...parse(block) } as TranslatorSpec;
    assert.ok(spec.auth?.signature, 'the example is signed');
    assert.deepEqual(translatorViolations(spec, 'spec'), []);
    const [checkout] = run(spec, { id: 1, total: 5 }, { 'x-shopify-topic': 'checkouts/create' });
    assert.equal(checkout?.['event_name'], 'begin_checkout');
  });

  it('refuses a list where a case’s transform takes one path, and a header id under a signature', () => {
    const listed = translatorViolations(
      {
        ...BILLING,
        cases: [
          {
            when: { source: 'type', equals: 'x' },
            fields: [{ target: 'n', source: 'a', transforms: [{ path: ['a', 'b'] }] }],
          },
        ],
      },
      'spec',
    );
    assert.match(
      JSON.stringify(listed),
      /spec\.cases\[0\]\.fields\[0\]\.transforms\[0\]\.path.*takes one path/,
    );
    const signed = translatorViolations(
      {
        ...BILLING,
        auth: { signature: { scheme: 'stripe', secrets: ['S'] } },
        cases: [
          { when: { source: 'type', equals: 'x' }, fields: [{ target: 'event_id', source: 'header:X-Id' }] },
        ],
      },
      'spec',
    );
    assert.match(JSON.stringify(signed), /spec\.cases\[0\]\.fields\[0\]\.source.*is not signed/);
  });

  it('takes unmappable: store only where a call can be kept as sent (JSON, form)', () => {
    assert.deepEqual(translatorViolations({ ...BILLING, unmappable: 'store' }, 'spec'), []);
    const csv = translatorViolations(
      { event: 'x', format: { type: 'csv' }, fields: [{ target: 'a', source: 'A' }], unmappable: 'store' },
      'spec',
    );
    assert.match(JSON.stringify(csv), /spec\.unmappable.*JSON or form/);
  });

  it('has every vendor webhook source of the catalogue say what it does with what it cannot map', () => {
    for (const s of sourceCatalogue().filter((x) => x.auth === 'signature'))
      assert.ok(['store', 'refuse'].includes(String(s.spec['unmappable'])), s.name);
    const stripe = sourceCatalogue().find((x) => x.name === 'stripe');
    assert.ok(stripe);
    const { unmappable: _u, ...spec } = stripe.spec;
    assert.match(
      sourceViolations({ ...stripe, spec }).join('\n'),
      /spec\.unmappable is required with auth: signature/,
    );
  });
});
