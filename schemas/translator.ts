/**
 * The `spec` of a Translator resource (docs/translators.md): how a payload someone already has
 * (a CSV export, a JSON body another tool sends, NDJSON) becomes events. Its endpoint is
 * `POST /v1/translators/{name}` on the gateway.
 */
import Type, { type Static } from 'typebox';
import { EVENT_NAME_PATTERN } from './context.ts';

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

/** Secret Manager names (the way destinations name theirs: adapters/secrets.ts), never values. */
const SecretName = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,255}$',
  description: 'A Secret Manager secret name',
});

/** How a sender that signs its body proves itself (docs/senders.md). */
export const TranslatorSignature = Type.Object(
  {
    scheme: Type.Union(
      [
        Type.Literal('stripe'),
        Type.Literal('shopify'),
        Type.Literal('github'),
        Type.Literal('woocommerce'),
        Type.Literal('hubspot'),
        Type.Literal('paddle'),
        Type.Literal('typeform'),
        Type.Literal('calendly'),
        Type.Literal('hmac'),
      ],
      { description: 'The vendor whose signature header is checked, or `hmac` for the generic form' },
    ),
    secrets: Type.Array(SecretName, {
      minItems: 1,
      maxItems: 2,
      description: 'The signing secret by name; two during a rotation (either verifies)',
    }),
    tolerance_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        description: 'How old a timestamped signature may be (default 300; HubSpot at most 300)',
      }),
    ),
    header: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$', description: '`hmac` only: the header (X-Signature)' }),
    ),
    algorithm: Type.Optional(
      Type.Union([Type.Literal('sha256'), Type.Literal('sha1'), Type.Literal('sha512')], {
        description: '`hmac` only (default sha256)',
      }),
    ),
    encoding: Type.Optional(
      Type.Union([Type.Literal('hex'), Type.Literal('base64'), Type.Literal('base64url')], {
        description: '`hmac` only (default hex)',
      }),
    ),
    prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: '`hmac` only: text before the digest (sha256=)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TranslatorSignature = Static<typeof TranslatorSignature>;

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
