/**
 * The `spec` of a Translator resource (docs/translators.md): how a payload someone already has
 * (a CSV export, a JSON body another tool sends, NDJSON) becomes events. Its endpoint is
 * `POST /v1/translators/{name}` on the gateway.
 */
import Type, { type Static } from 'typebox';
import { EVENT_NAME_PATTERN } from './context.ts';
import { TranslatorSignature } from './translator-signature.ts';

export const CsvFormat = Type.Object(
  {
    type: Type.Literal('csv'),
    delimiter: Type.Optional(Type.String({ minLength: 1, maxLength: 1, description: 'Default `,`' })),
    quote: Type.Optional(Type.String({ minLength: 1, maxLength: 1, description: 'Default `"`' })),
    header: Type.Optional(Type.Boolean({ description: 'The first record names the columns (default true)' })),
    columns: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        minItems: 1,
        maxItems: 1000,
        description: 'The column names when the payload has no header row',
      }),
    ),
    charset: Type.Optional(
      Type.Union([Type.Literal('utf-8'), Type.Literal('latin1')], {
        description: 'How the bytes are decoded (default utf-8; a charset in the Content-Type wins)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const JsonFormat = Type.Object(
  {
    type: Type.Literal('json'),
    records: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z_$][A-Za-z0-9_$-]*(\\.[A-Za-z_$][A-Za-z0-9_$-]*)*$',
        description: 'Dotted path to the array of records inside the body (`batch`, `events`)',
      }),
    ),
    single: Type.Optional(
      Type.Boolean({
        description: 'A body without the `records` list is one record (default false: refused)',
      }),
    ),
    inherit: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: 50,
        description:
          'Top-level fields of the body every record also sees (`client_id`, `user_id` beside `events`)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const NdjsonFormat = Type.Object({ type: Type.Literal('ndjson') }, { additionalProperties: false });

export const FormFormat = Type.Object(
  {
    type: Type.Literal('form'),
    max_depth: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 16, description: 'How deep bracketed keys may nest (default 5)' }),
    ),
  },
  { additionalProperties: false, description: 'An application/x-www-form-urlencoded body: one record' },
);

const Scalar = Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean()]);

/** Where a value is read: one path, or fallbacks of which the first present wins. */
export const SourcePaths = Type.Union([
  Type.String({
    minLength: 1,
    maxLength: 256,
    description:
      'A column of the CSV, or a dotted path into a JSON record; in a field or `key`, `header:X-Name` reads a request header',
  }),
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
    minItems: 1,
    maxItems: 8,
    description: 'The first of these that is present',
  }),
]);
export type SourcePaths = Static<typeof SourcePaths>;

/** A transform that takes one value (every one but `each`, which may use them inside its items). */
const ValueTransforms = [
  Type.Union(
    [
      Type.Literal('trim'),
      Type.Literal('lowercase'),
      Type.Literal('uppercase'),
      Type.Literal('number'),
      Type.Literal('integer'),
      Type.Literal('boolean'),
      Type.Literal('string'),
      Type.Literal('sha256'),
      Type.Literal('empty_is_null'),
      Type.Literal('snake_case'),
      Type.Literal('list'),
      Type.Literal('base64'),
      Type.Literal('json'),
    ],
    { description: 'A transform without arguments' },
  ),
  Type.Object(
    {
      decimal: Type.Union([Type.Literal(','), Type.Literal('.')], {
        description: 'A number written with this decimal mark (thousands separators are dropped)',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { date: Type.String({ minLength: 2, maxLength: 64, description: 'A date pattern: DD.MM.YYYY' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      timestamp: Type.String({
        minLength: 2,
        maxLength: 64,
        description: 'A date-and-time pattern: DD/MM/YYYY HH:mm (Z for an offset)',
      }),
      zone: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'IANA time zone of times without an offset',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      split: Type.String({ minLength: 1, maxLength: 8, description: 'Text into a list, on this separator' }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      epoch: Type.Union([Type.Literal('seconds'), Type.Literal('millis'), Type.Literal('micros')], {
        description: 'A number (or digits) of this unit since 1970 into an RFC 3339 time',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      lookup: Type.Record(Type.String({ maxLength: 256 }), Scalar, {
        description: 'Replace a value by the one it maps to',
      }),
      otherwise: Type.Optional(Type.Union([Scalar, Type.Null()], { description: 'For values not listed' })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      path: Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'A dotted path into the value (after `json` or `base64`): `email.0`, `data.sku`',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      major_units: Type.Union(
        [
          Type.Object(
            { source: SourcePaths },
            {
              additionalProperties: false,
              description: 'Where the record holds its ISO 4217 code (a list: the first present)',
            },
          ),
          Type.Object(
            { currency: Type.String({ pattern: '^[A-Za-z]{3}$' }) },
            { additionalProperties: false, description: 'One currency for every record' },
          ),
        ],
        {
          description:
            'An amount in minor units (cents) into major units by the currency’s ISO 4217 exponent: JPY 0, EUR 2, KWD 3',
        },
      ),
    },
    { additionalProperties: false },
  ),
] as const;

/** One step of a value's transform chain inside `each`. */
export const TranslatorValueTransform = Type.Union([...ValueTransforms]);
export type TranslatorValueTransform = Static<typeof TranslatorValueTransform>;

/** One step of a field's transform chain. */
export const TranslatorTransform = Type.Union([
  ...ValueTransforms,
  Type.Object(
    {
      each: Type.Record(
        Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }),
        Type.Union([
          SourcePaths,
          Type.Object(
            {
              source: SourcePaths,
              transforms: Type.Optional(Type.Array(TranslatorValueTransform, { maxItems: 16 })),
            },
            {
              additionalProperties: false,
              description: 'A path in the object (a list: the first present), with transforms',
            },
          ),
        ]),
        {
          minProperties: 1,
          description:
            'Each object of a list (or one object) rebuilt: new key ← path in the object (or a list of fallbacks), or {source, transforms}',
        },
      ),
    },
    { additionalProperties: false },
  ),
]);
export type TranslatorTransform = Static<typeof TranslatorTransform>;

/** Where a value goes: `event_time`, `event_name`, `event_id`, a context path, or an event field. */
export const TARGET_PATTERN = '^[a-z][a-z0-9_]{0,63}(\\.[a-z][a-z0-9_]{0,63}){0,3}$';

export const TranslatorField = Type.Object(
  {
    target: Type.String({ pattern: TARGET_PATTERN }),
    source: Type.Optional(SourcePaths),
    value: Type.Optional(Scalar),
    transforms: Type.Optional(Type.Array(TranslatorTransform, { maxItems: 16 })),
    default: Type.Optional(Scalar),
  },
  { additionalProperties: false },
);
export type TranslatorField = Static<typeof TranslatorField>;

/** What picks a case: a source's value equal to one scalar, or to one of a list (compared as text). */
/**
 * Transforms applied to a `when`'s source before it is compared: to look inside a value, as a
 * field's own transforms do (`[base64, json, {path: data.schema}]` for Snowplow's `ue_px`,
 * `[json, {path: …}]` for a form field holding JSON).
 */
const WhenTransforms = Type.Optional(
  Type.Array(TranslatorValueTransform, {
    maxItems: 16,
    description:
      'Applied to the source before the comparison, as a field’s transforms (`[base64, json, {path: data.schema}]`)',
  }),
);

export const TranslatorCaseWhen = Type.Union([
  Type.Object(
    {
      source: SourcePaths,
      transforms: WhenTransforms,
      equals: Scalar,
    },
    { additionalProperties: false, description: 'The source’s value is this one (`type: charge.refunded`)' },
  ),
  Type.Object(
    {
      source: SourcePaths,
      transforms: WhenTransforms,
      in: Type.Array(Scalar, { minItems: 1, maxItems: 200 }),
    },
    { additionalProperties: false, description: 'The source’s value is one of these' },
  ),
]);
export type TranslatorCaseWhen = Static<typeof TranslatorCaseWhen>;

/**
 * Per-type field rules: a record the `when` matches takes these fields in place of the common
 * fields of the same targets (and any target of its own); the first matching case wins.
 */
export const TranslatorCase = Type.Object(
  {
    when: TranslatorCaseWhen,
    fields: Type.Array(TranslatorField, { minItems: 1, maxItems: 200 }),
  },
  { additionalProperties: false },
);
export type TranslatorCase = Static<typeof TranslatorCase>;

/** How a sender that signs its body proves itself: schemas/translator-signature.ts. */
export { TranslatorSignature };

/** Which credentials a translator's endpoint takes besides project tokens (docs/senders.md). */
export const TranslatorAuth = Type.Object(
  {
    signature: Type.Optional(TranslatorSignature),
    url_token: Type.Optional(
      Type.Boolean({
        description:
          'Also take a token scoped to this translator alone in the URL (?key= or a path segment), for senders that can only be given a URL',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TranslatorAuth = Static<typeof TranslatorAuth>;

/** In `events`: any event that is not in the catalogue (custom events kept by name). */
export const ANY_CUSTOM_EVENT = 'custom:*';

export const TranslatorSpecSchema = Type.Object(
  {
    event: Type.String({ pattern: EVENT_NAME_PATTERN, description: 'The event each row becomes' }),
    format: Type.Union([CsvFormat, JsonFormat, NdjsonFormat, FormFormat]),
    fields: Type.Array(TranslatorField, { minItems: 1, maxItems: 500 }),
    cases: Type.Optional(
      Type.Array(TranslatorCase, {
        minItems: 1,
        maxItems: 50,
        description:
          'Per-type field rules: the first case whose `when` matches a record replaces the common fields of its targets',
      }),
    ),
    unmappable: Type.Optional(
      Type.Union([Type.Literal('store'), Type.Literal('refuse')], {
        description:
          'A delivery that cannot become events: `refuse` it (400, the default) or `store` it in invalid_events and answer 200 (for senders that retry a refusal for days)',
      }),
    ),
    key: Type.Optional(
      Type.Array(SourcePaths, {
        minItems: 1,
        maxItems: 8,
        description:
          'Sources whose values make a row’s event_id (re-sent rows fold); each a path or a list of fallbacks',
      }),
    ),
    events: Type.Optional(
      Type.Array(Type.Union([Type.String({ pattern: EVENT_NAME_PATTERN }), Type.Literal(ANY_CUSTOM_EVENT)]), {
        minItems: 1,
        maxItems: 500,
        description:
          'The events the translator may produce (required when event_name comes from the payload; `custom:*` for any custom event)',
      }),
    ),
    auth: Type.Optional(TranslatorAuth),
    max_rows: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200_000, description: 'Rows per request (default 50,000)' }),
    ),
  },
  { additionalProperties: false },
);
export type TranslatorSpec = Static<typeof TranslatorSpecSchema>;
