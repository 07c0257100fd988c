/**
 * The mapping language (typebox): how a stored event becomes one platform event. A mapping
 * names the target event and fills target fields (dotted paths such as `custom_data.value`)
 * from source paths with ordered fallbacks, constants and transform chains.
 */
import Type, { type Static } from 'typebox';

/** A dotted path into the stored event; context groups first (`user.email`), else `event_data`. */
export const SourcePath = Type.String({
  pattern: '^(\\$|\\$\\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*)(\\.[A-Za-z_][A-Za-z0-9_]*)*$',
  description: 'Dotted source path: `user.email`, `value`, `event_data.value`; `$.x` inside `each`',
});

/** Names of the transforms that take no argument. */
export const SimpleTransform = Type.Union(
  [
    Type.Literal('trim'),
    Type.Literal('lowercase'),
    Type.Literal('uppercase'),
    Type.Literal('sha256'),
    Type.Literal('name'),
    Type.Literal('city'),
    Type.Literal('state'),
    Type.Literal('zip'),
    Type.Literal('country'),
    Type.Literal('gender'),
    Type.Literal('date_of_birth'),
    Type.Literal('unix_seconds'),
    Type.Literal('unix_micros'),
    Type.Literal('number'),
    Type.Literal('string'),
    Type.Literal('list'),
    Type.Literal('fbc'),
    Type.Literal('google_email'),
    Type.Literal('google_ads_email'),
    Type.Literal('google_ads_name'),
    Type.Literal('pseudonymous_id'),
    Type.Literal('sum'),
    Type.Literal('unix_millis'),
    Type.Literal('reddit_email'),
  ],
  { description: 'A transform without arguments' },
);
export type SimpleTransform = Static<typeof SimpleTransform>;

/** The names of the transforms without arguments, read from the schema (the one list of them). */
export const SIMPLE_TRANSFORMS: readonly SimpleTransform[] = Object.freeze(
  SimpleTransform.anyOf.map((literal) => literal.const),
);

export const PhoneTransform = Type.Object(
  {
    phone: Type.Union([Type.Literal('e164'), Type.Literal('digits')], {
      description: '`digits` with country code (Meta) or `e164` with a leading + (TikTok)',
    }),
    country: Type.Optional(
      Type.Union([SourcePath], { description: 'Where the ISO country is read (default user.country)' }),
    ),
  },
  { additionalProperties: false },
);
export type PhoneTransform = Static<typeof PhoneTransform>;

export const JoinTransform = Type.Object(
  { join: Type.String({ maxLength: 8, description: 'Separator between list elements' }) },
  { additionalProperties: false },
);
export type JoinTransform = Static<typeof JoinTransform>;

export const OneOfTransform = Type.Object(
  {
    oneOf: Type.Array(Type.String({ maxLength: 100 }), {
      minItems: 1,
      maxItems: 50,
      description:
        'Keep the value only when it is one of these (compared case-insensitively); otherwise leave the field out',
    }),
  },
  { additionalProperties: false },
);
export type OneOfTransform = Static<typeof OneOfTransform>;

export const Transform = Type.Union([SimpleTransform, PhoneTransform, JoinTransform, OneOfTransform]);
export type Transform = Static<typeof Transform>;

const Json = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.Unknown())]);

/**
 * How one target field is filled. A bare string is a source path. `from` takes the first
 * present value among its paths; `const` a constant; `list`/`object` build arrays and nested
 * objects from field sources; `each` maps every element of a source array (paths `$.x` read the element).
 * `transform` runs left to right on the value; `default` applies when nothing was found.
 */
export const FieldSource = Type.Cyclic(
  {
    FieldSource: Type.Union([
      SourcePath,
      Type.Object(
        {
          from: Type.Union([SourcePath, Type.Array(SourcePath, { minItems: 1 })]),
          transform: Type.Optional(Type.Array(Transform)),
          default: Type.Optional(Json),
        },
        { additionalProperties: false },
      ),
      Type.Object({ const: Json }, { additionalProperties: false }),
      // Ordered fallbacks whose transforms differ: the first rule that gives a value.
      Type.Object(
        { first: Type.Array(Type.Ref('FieldSource'), { minItems: 1 }) },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          list: Type.Array(Type.Ref('FieldSource')),
          transform: Type.Optional(Type.Array(Transform)),
        },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          object: Type.Record(Type.String({ minLength: 1 }), Type.Ref('FieldSource')),
          // Keys without which the object means nothing (Meta `contents[]` needs an `id`): left out when one is missing.
          required: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
        },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          each: SourcePath,
          fields: Type.Record(Type.String({ minLength: 1 }), Type.Ref('FieldSource')),
        },
        { additionalProperties: false },
      ),
      Type.Object({ each: SourcePath, value: Type.Ref('FieldSource') }, { additionalProperties: false }),
    ]),
  },
  'FieldSource',
);
export type FieldSource =
  | string
  | { from: string | string[]; transform?: Transform[]; default?: string | number | boolean | unknown[] }
  | { const: string | number | boolean | unknown[] }
  | { first: FieldSource[] }
  | { list: FieldSource[]; transform?: Transform[] }
  | { object: Record<string, FieldSource>; required?: string[] }
  | { each: string; fields: Record<string, FieldSource> }
  | { each: string; value: FieldSource };

/** A target field path: dotted (`custom_data.value`, `params.items`). */
export const TargetPath = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$' });

/**
 * One event's mapping for one destination. In settings it overrides the built-in default
 * field by field (`null` removes a default field) unless `replace: true`; for a custom event it
 * is the whole mapping and must name `event`.
 */
export const Mapping = Type.Object(
  {
    event: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'The platform event name to send' }),
    ),
    replace: Type.Optional(
      Type.Boolean({ description: 'Ignore the built-in default for this event instead of merging' }),
    ),
    fields: Type.Optional(
      Type.Record(TargetPath, Type.Union([FieldSource, Type.Null()]), {
        description: 'Target field ← rule; null drops a default field',
      }),
    ),
  },
  { additionalProperties: false },
);
export interface Mapping {
  event?: string;
  replace?: boolean;
  fields?: Record<string, FieldSource | null>;
}

/**
 * The shape the settings schema checks for a destination's `mappings`: rules inside `fields`
 * are checked by `checkMappings` (core/platforms/mapping-check.ts), which gives one clear
 * message per bad rule instead of a union's per-branch noise, and knows the catalogue.
 */
export const MappingsSetting = Type.Record(
  Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }),
  Type.Object(
    {
      event: Type.Optional(
        Type.String({ minLength: 1, maxLength: 64, description: 'The platform event name' }),
      ),
      replace: Type.Optional(Type.Boolean({ description: 'Ignore the built-in default instead of merging' })),
      fields: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'Target field ← rule; null drops a default field',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  { description: 'Linkage overrides and custom-event mappings, by event name (docs/linkage.md)' },
);

/** A destination's `mappings` settings key: event name → mapping. */
export const Mappings = Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }), Mapping, {
  description: 'Linkage overrides and custom-event mappings, by event name',
});
export type Mappings = Record<string, Mapping>;

/** A complete mapping, after defaults and overrides are merged: always names its event. */
export interface ResolvedMapping {
  readonly event: string;
  readonly fields: Readonly<Record<string, FieldSource>>;
}
