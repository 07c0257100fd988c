/**
 * The rules of core/samples/draft.ts one at a time (the creator's tests run whole samples through
 * it): the transforms each inferred column needs, the platforms' mappings, what a choice writes
 * into the definition and the translator, the translator's format, consent per purpose, and
 * where the event's key comes from.
 */
import assert from 'node:assert/strict';
import type { ColumnChoice, PlatformChoice } from '../../../core/samples/draft.ts';
import { draftResources, platformMappings, transformsFor } from '../../../core/samples/draft.ts';
import type { InferredField, ParsedSample } from '../../../core/samples/sample.ts';

const col = (
  name: string,
  type: InferredField['type'],
  extra: Partial<InferredField> = {},
): InferredField => ({
  name,
  type,
  examples: [],
  distinct: 1,
  nullable: false,
  ...extra,
});
const sampleOf = (format: ParsedSample['format'], extra: Partial<ParsedSample> = {}): ParsedSample => ({
  format,
  header: true,
  columns: [],
  rows: [],
  problems: [],
  ...extra,
});
const JSON_SAMPLE = sampleOf('json');
const CSV_SAMPLE = sampleOf('csv');

/** A draft of the fields and choices, from a JSON sample unless another is given. */
function draft(
  fields: InferredField[],
  choices: ColumnChoice[],
  more: { sample?: ParsedSample; platforms?: PlatformChoice; zone?: string; description?: string } = {},
) {
  return draftResources({
    eventName: 'order',
    translatorName: 'orders',
    sample: more.sample ?? JSON_SAMPLE,
    fields,
    choices,
    ...(more.zone ? { zone: more.zone } : {}),
    ...(more.platforms ? { platforms: more.platforms } : {}),
    ...(more.description ? { description: more.description } : {}),
  });
}
const specFields = (d: ReturnType<typeof draft>) => d.definition.spec.fields as Record<string, unknown>[];

describe('the creator: the transforms a column needs', () => {
  it('reads each written form of a number or a time the way it is written', () => {
    const t = (f: InferredField, sample = JSON_SAMPLE) => transformsFor(f, sample, 'Europe/Berlin');
    assert.deepEqual(t(col('p', 'number', { pattern: 'decimal_comma' })), [{ decimal: ',' }]);
    assert.deepEqual(t(col('t', 'timestamp', { pattern: 'epoch_millis' })), [{ epoch: 'millis' }]);
    assert.deepEqual(t(col('t', 'timestamp', { pattern: 'epoch_seconds' })), [{ epoch: 'seconds' }]);
    assert.deepEqual(t(col('d', 'date', { pattern: 'DD.MM.YYYY' })), [{ date: 'DD.MM.YYYY' }]);
    assert.deepEqual(t(col('d', 'date', { pattern: 'ISO 8601' })), []);
    assert.deepEqual(t(col('d', 'date')), []);
    assert.deepEqual(t(col('t', 'timestamp', { pattern: 'DD.MM.YYYY HH:mm' })), [
      { timestamp: 'DD.MM.YYYY HH:mm', zone: 'Europe/Berlin' },
    ]);
    // A pattern with its own offset needs no zone.
    assert.deepEqual(t(col('t', 'timestamp', { pattern: 'YYYY-MM-DD HH:mm:ss Z' })), [
      { timestamp: 'YYYY-MM-DD HH:mm:ss Z' },
    ]);
    assert.deepEqual(t(col('t', 'timestamp', { pattern: 'RFC 3339' })), []);
    assert.deepEqual(t(col('t', 'timestamp', { pattern: 'ISO 8601' })), []);
    assert.deepEqual(t(col('t', 'timestamp')), []);
  });

  it('a currency code is trimmed and in capitals; an e-mail address trimmed and in small letters', () => {
    const t = (f: InferredField, sample: ParsedSample) => transformsFor(f, sample, 'UTC');
    assert.deepEqual(t(col('c', 'string', { format: 'currency' }), JSON_SAMPLE), ['trim', 'uppercase']);
    assert.deepEqual(t(col('e', 'string', { format: 'email' }), CSV_SAMPLE), ['trim', 'lowercase']);
    assert.deepEqual(t(col('e', 'string', { format: 'email', text: true }), JSON_SAMPLE), [
      'trim',
      'lowercase',
    ]);
  });

  it('a JSON value needs nothing; text (CSV, TSV, a form, or JSON written as text) is converted', () => {
    const t = (f: InferredField, sample: ParsedSample) => transformsFor(f, sample, 'UTC');
    for (const type of ['number', 'integer', 'boolean'] as const) {
      assert.deepEqual(t(col('x', type), JSON_SAMPLE), [], type);
      assert.deepEqual(t(col('x', type), sampleOf('ndjson')), [], type);
      for (const format of ['csv', 'tsv', 'form'] as const)
        assert.deepEqual(t(col('x', type), sampleOf(format)), [type], `${type} in ${format}`);
      assert.deepEqual(t(col('x', type, { text: true }), JSON_SAMPLE), [type], `${type} as text`);
    }
    assert.deepEqual(t(col('e', 'string', { format: 'email' }), JSON_SAMPLE), []);
    assert.deepEqual(t(col('s', 'string'), CSV_SAMPLE), []);
    assert.deepEqual(t(col('u', 'string', { format: 'url' }), CSV_SAMPLE), []);
  });
});

describe('the creator: the platforms’ mappings', () => {
  it('maps the value and a currency field per platform, and the action source where it has one', () => {
    assert.deepEqual(
      platformMappings({
        events: { meta_capi: 'Purchase', ga4_mp: 'purchase', tiktok_events: '' },
        valueField: 'total',
        currency: { field: 'currency' },
        actionSource: 'website',
      }),
      {
        meta_capi: {
          event: 'Purchase',
          fields: {
            'custom_data.value': { from: 'total', transform: ['number'] },
            'custom_data.currency': { from: 'currency' },
            action_source: { const: 'website' },
          },
        },
        ga4_mp: {
          event: 'purchase',
          fields: {
            'params.value': { from: 'total', transform: ['number'] },
            'params.currency': { from: 'currency' },
          },
        },
      },
    );
  });

  it('a fixed currency is written in capitals; no value, no currency; no field, the event alone', () => {
    assert.deepEqual(
      platformMappings({ events: { google_ads: 'conv' }, valueField: 'total', currency: { code: 'eur' } }),
      {
        google_ads: {
          event: 'conv',
          fields: { conversionValue: { from: 'total', transform: ['number'] }, currency: { const: 'EUR' } },
        },
      },
    );
    assert.deepEqual(platformMappings({ events: { ga4_mp: 'sign_up' }, currency: { code: 'eur' } }), {
      ga4_mp: { event: 'sign_up' },
    });
    assert.deepEqual(platformMappings({ events: { ga4_mp: 'sign_up' }, actionSource: 'website' }), {
      ga4_mp: { event: 'sign_up' },
    });
    assert.deepEqual(platformMappings({ events: { meta_capi: 'Lead' }, valueField: 'total' }), {
      meta_capi: { event: 'Lead', fields: { 'custom_data.value': { from: 'total', transform: ['number'] } } },
    });
    assert.deepEqual(platformMappings({ events: { meta_capi: 'Lead' } }), { meta_capi: { event: 'Lead' } });
  });

  it('a draft carries the mappings only when some platform is chosen', () => {
    const f = [col('total', 'number')];
    const c: ColumnChoice[] = [{ column: 'total', target: 'event_data' }];
    assert.deepEqual(draft(f, c, { platforms: { events: { meta_capi: 'Lead' } } }).definition.spec.mappings, {
      meta_capi: { event: 'Lead' },
    });
    assert.equal('mappings' in draft(f, c, { platforms: { events: {} } }).definition.spec, false);
    assert.equal('mappings' in draft(f, c).definition.spec, false);
  });
});

describe('the creator: what a choice writes', () => {
  it('writes what the person marked on a field, and only where the type allows it', () => {
    const d = draft(
      [
        col('name', 'string'),
        col('qty', 'integer'),
        col('price', 'number', { examples: [19.99] }),
        col('mail', 'string', { format: 'email' }),
      ],
      [
        {
          column: 'name',
          target: 'event_data',
          required: true,
          description: 'Who',
          enum: ['a', 'b'],
          minimum: 1,
          maximum: 2,
          maxLength: 40,
          pii: true,
        },
        { column: 'qty', target: 'event_data', enum: ['1'], minimum: 1, maximum: 9, maxLength: 3 },
        { column: 'price', target: 'event_data', field: 'amount', minimum: 0 },
        { column: 'mail', target: 'event_data', enum: [], required: false, pii: false },
      ],
    );
    assert.deepEqual(specFields(d), [
      {
        name: 'name',
        type: 'string',
        required: true,
        description: 'Who',
        enum: ['a', 'b'],
        maxLength: 40,
        pii: true,
      },
      { name: 'qty', type: 'integer', minimum: 1, maximum: 9 },
      { name: 'amount', type: 'number', minimum: 0 },
      { name: 'mail', type: 'string', format: 'email' },
    ]);
  });

  it('writes a format only for text the sample’s own values all hold', () => {
    const d = draft(
      [
        col('a', 'string', { format: 'phone', loose: true }),
        col('b', 'integer', { format: 'phone' }),
        col('c', 'string', { format: 'url' }),
      ],
      ['a', 'b', 'c'].map((column) => ({ column, target: 'event_data' })),
    );
    assert.deepEqual(
      specFields(d).map((f) => f.format),
      [undefined, undefined, 'url'],
    );
  });

  it('an integer beyond 2^53 is kept as text; a number for a context id becomes text', () => {
    const d = draft(
      [
        col('big', 'integer', { examples: [2 ** 53 + 2] }),
        col('small', 'integer', { examples: [5, '9007199254740993'] }),
        col('uid', 'integer'),
        col('zip', 'number'),
        col('t', 'integer', { pattern: 'epoch_seconds' }),
      ],
      [
        { column: 'big', target: 'event_data' },
        { column: 'small', target: 'event_data' },
        { column: 'uid', target: 'user_id' },
        { column: 'zip', target: 'user.postal_code' },
        { column: 't', target: 'event_time' },
      ],
    );
    assert.deepEqual(
      d.translator.spec.fields.map((f) => [f.target, 'transforms' in f ? f.transforms : undefined]),
      [
        ['big', ['string']],
        ['small', undefined],
        ['user_id', ['string']],
        ['user.postal_code', ['string']],
        ['event_time', [{ epoch: 'seconds' }]],
      ],
    );
    assert.deepEqual(
      specFields(d).map((f) => f.type),
      ['string', 'integer'],
    );
  });

  it('a date as the event time is midnight of that day in the zone, in its own pattern', () => {
    const fields = (d: ReturnType<typeof draft>) => d.translator.spec.fields;
    assert.deepEqual(
      fields(
        draft([col('day', 'date', { pattern: 'DD.MM.YYYY' })], [{ column: 'day', target: 'event_time' }], {
          zone: 'Europe/Berlin',
        }),
      ),
      [
        {
          target: 'event_time',
          source: 'day',
          transforms: [{ timestamp: 'DD.MM.YYYY', zone: 'Europe/Berlin' }],
        },
      ],
    );
    assert.deepEqual(
      fields(draft([col('day', 'date', { pattern: 'ISO 8601' })], [{ column: 'day', target: 'event_time' }])),
      [{ target: 'event_time', source: 'day', transforms: [{ timestamp: 'YYYY-MM-DD', zone: 'UTC' }] }],
    );
    assert.deepEqual(fields(draft([col('day', 'date')], [{ column: 'day', target: 'event_data' }])), [
      { target: 'day', source: 'day' },
    ]);
  });

  it('minor units are scaled to a number by the currency the person chose', () => {
    const d = draft(
      [col('amount_cents', 'integer')],
      [
        {
          column: 'amount_cents',
          target: 'event_data',
          field: 'amount',
          majorUnits: { source: 'currency' },
          maximum: 5,
        },
      ],
    );
    assert.deepEqual(d.translator.spec.fields, [
      { target: 'amount', source: 'amount_cents', transforms: [{ major_units: { source: 'currency' } }] },
    ]);
    assert.deepEqual(specFields(d), [{ name: 'amount', type: 'number', maximum: 5 }]);
  });

  it('a column inside a form field’s JSON or a base64 value is read through it', () => {
    const sample = sampleOf('form', { embedded: ['data.json'], encoded: ['ue_px'] });
    const d = draft(
      [col('data.json.variant', 'string'), col('ue_px.data.id', 'integer'), col('data.jsonx', 'string')],
      [
        { column: 'data.json.variant', target: 'event_data', field: 'variant' },
        { column: 'ue_px.data.id', target: 'event_data', field: 'id' },
        { column: 'data.jsonx', target: 'event_data', field: 'x' },
      ],
      { sample },
    );
    assert.deepEqual(d.translator.spec.fields, [
      { target: 'variant', source: 'data.json', transforms: ['json', { path: 'variant' }] },
      { target: 'id', source: 'ue_px', transforms: ['base64', 'json', { path: 'data.id' }, 'integer'] },
      { target: 'x', source: 'data.jsonx' },
    ]);
  });

  it('a skipped column, an unknown one and delivery metadata are left out; a field keeps its own name', () => {
    const d = draft(
      [col('Order Total', 'number'), col('note', 'string'), col('attempt', 'integer', { examples: [1] })],
      [
        { column: 'Order Total', target: 'event_data' },
        { column: 'note', target: 'skip' },
        { column: 'ghost', target: 'event_data' },
        { column: 'attempt', target: 'event_data' },
      ],
    );
    assert.deepEqual(d.translator.spec.fields, [{ target: 'order_total', source: 'Order Total' }]);
    assert.deepEqual(
      d.identity.left.map((l) => l.column),
      ['attempt'],
    );
    const skipped = draft(
      [col('attempt', 'integer', { examples: [1] })],
      [{ column: 'attempt', target: 'skip' }],
    );
    assert.deepEqual(skipped.identity.left, []);
    // Left out is said only of what was chosen: a delivery column nobody chose is not listed.
    const unchosen = draft(
      [col('attempt', 'integer', { examples: [1] }), col('note', 'string')],
      [{ column: 'note', target: 'event_data' }],
    );
    assert.deepEqual(unchosen.identity.left, []);
  });
});

describe('the creator: the translator’s format, names and consent', () => {
  it('writes the sample’s format: JSON with its records, NDJSON, a form, CSV and TSV', () => {
    const format = (sample: ParsedSample) => draft([], [], { sample }).translator.spec.format;
    assert.deepEqual(format(sampleOf('json', { records: 'events' })), { type: 'json', records: 'events' });
    assert.deepEqual(format(sampleOf('json')), { type: 'json' });
    assert.deepEqual(format(sampleOf('ndjson')), { type: 'ndjson' });
    assert.deepEqual(format(sampleOf('form')), { type: 'form' });
    assert.deepEqual(format(sampleOf('csv', { delimiter: ';' })), {
      type: 'csv',
      delimiter: ';',
      header: true,
    });
    assert.deepEqual(format(sampleOf('csv')), { type: 'csv', delimiter: ',', header: true });
    assert.deepEqual(format(sampleOf('tsv')), { type: 'csv', delimiter: '\t', header: true });
    assert.deepEqual(format(sampleOf('csv', { header: false, columns: ['a', 'b'] })), {
      type: 'csv',
      delimiter: ',',
      header: false,
      columns: ['a', 'b'],
    });
  });

  it('names the resources and says where the translator came from', () => {
    const d = draft([], [], { sample: sampleOf('ndjson'), description: 'Orders from the shop' });
    assert.deepEqual(
      [d.definition.kind, d.definition.name, d.definition.description],
      ['EventDefinition', 'order', 'Orders from the shop'],
    );
    assert.deepEqual(
      [d.translator.kind, d.translator.name, d.translator.description, d.translator.spec.event],
      ['Translator', 'orders', "Made with the studio's creator from a NDJSON sample.", 'order'],
    );
    assert.equal('description' in draft([], []).definition, false);
  });

  it('consent granted for every row, or read per row from a column; never over a column mapped to it', () => {
    const d = draft([col('ok', 'string'), col('ads', 'string')], [{ column: 'ads', target: 'consent.ads' }], {
      platforms: {
        events: {},
        consent: { analytics: 'granted', ad_user_data: { column: 'ok' }, ads: 'granted' },
      },
    });
    const fields = d.translator.spec.fields;
    assert.deepEqual(fields[0], { target: 'consent.ads', source: 'ads' });
    assert.deepEqual(fields[1], { target: 'consent.analytics', value: 'granted' });
    const perRow = fields[2] as { target: string; source: string; transforms: unknown[] };
    assert.deepEqual(
      [perRow.target, perRow.source, perRow.transforms.slice(0, 2)],
      ['consent.ad_user_data', 'ok', ['trim', 'lowercase']],
    );
    const lookup = perRow.transforms[2] as { lookup: Record<string, string>; otherwise: string };
    assert.deepEqual(Object.keys(lookup.lookup).sort(), [
      '1',
      'granted',
      'ja',
      'on',
      'opt_in',
      'opted_in',
      'oui',
      'si',
      'subscribed',
      'sí',
      'true',
      'y',
      'yes',
    ]);
    assert.deepEqual(new Set(Object.values(lookup.lookup)), new Set(['granted']));
    assert.equal(lookup.otherwise, 'denied');
    assert.equal(fields.length, 3);
  });
});

describe('the creator: where the event’s key comes from', () => {
  it('a chosen event id is the key when the payload gives the event time', () => {
    const d = draft(
      [col('order_id', 'string'), col('at', 'timestamp')],
      [
        { column: 'order_id', target: 'event_id' },
        { column: 'at', target: 'event_time' },
      ],
    );
    assert.deepEqual(d.translator.spec.key, ['order_id']);
    assert.deepEqual(
      d.translator.spec.fields.map((f) => f.target),
      ['event_time'],
    );
    assert.equal(d.identity.key, undefined);
  });

  it('without an event time it is the event_id field, a number written as text', () => {
    const d = draft(
      [col('order_id', 'integer'), col('ref', 'number'), col('code', 'string'), col('note', 'string')],
      [
        { column: 'order_id', target: 'event_id' },
        { column: 'ref', target: 'event_id' },
        { column: 'code', target: 'event_id' },
        { column: 'note', target: 'event_data' },
      ],
    );
    assert.equal(d.translator.spec.key, undefined);
    assert.deepEqual(d.translator.spec.fields, [
      { target: 'note', source: 'note' },
      { target: 'event_id', source: 'order_id', transforms: ['string'] },
      { target: 'event_id', source: 'ref', transforms: ['string'] },
      { target: 'event_id', source: 'code' },
    ]);
  });

  it('a chosen event id wins over the vendor’s own id', () => {
    const sample = sampleOf('json', { rows: [{ id: 'evt_1', order_id: 'o1' }] });
    const d = draft(
      [col('id', 'string'), col('order_id', 'string')],
      [{ column: 'order_id', target: 'event_id' }],
      {
        sample,
      },
    );
    assert.equal(d.translator.spec.key, undefined);
    assert.deepEqual(d.translator.spec.fields, [{ target: 'event_id', source: 'order_id' }]);
    assert.equal(d.identity.key, undefined);
  });

  it('none chosen: the vendor’s own id is the key, said in the draft’s identity', () => {
    const sample = sampleOf('json', { rows: [{ id: 'evt_1', topic: 'x' }] });
    const d = draft(
      [col('id', 'string'), col('topic', 'string')],
      [{ column: 'topic', target: 'event_data' }],
      {
        sample,
      },
    );
    assert.deepEqual(d.translator.spec.key, ['id']);
    assert.deepEqual(d.identity.key?.columns, ['id']);
    assert.deepEqual(
      d.translator.spec.fields.map((f) => f.target),
      ['topic_data'],
    );
  });
});
