/**
 * The `spec` of a Sync resource (reverse ETL; docs/syncs.md): a model in SQL with a primary key,
 * a mode, an optional cursor column, a schedule, and one destination named through a settings
 * connection (webhook, files, a Meta custom audience), a topic, or audience events published into
 * the pipeline (core/syncs/audience-events.ts).
 */
import Type, { type Static } from 'typebox';
import { FieldSource } from './mapping.ts';
import { Schedule } from './rule.ts';

export const SyncDestination = Type.Union([
  Type.Object(
    { webhook: Type.Object({ connection: Type.String({ minLength: 1 }) }, { additionalProperties: false }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      files: Type.Object(
        {
          connection: Type.String({ minLength: 1, description: 'A storage connection (its bucket)' }),
          format: Type.Optional(Type.Union([Type.Literal('jsonl'), Type.Literal('csv')])),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      meta_audience: Type.Object(
        {
          connection: Type.String({ minLength: 1, description: 'A meta_audience connection (its token)' }),
          audience_id: Type.String({
            pattern: '^[0-9]{1,24}$',
            description: 'The customer list custom audience',
          }),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      google_ads_audience: Type.Object(
        {
          connection: Type.String({
            minLength: 1,
            description:
              'A google_ads_audience connection (its credentials secret, or else the schedule function’s own account)',
          }),
          operating_account_id: Type.String({
            pattern: '^[0-9]{3}-?[0-9]{3}-?[0-9]{4}$',
            description: 'The Google Ads account that owns the list (10 digits)',
          }),
          login_account_id: Type.Optional(
            Type.String({
              pattern: '^[0-9]{3}-?[0-9]{3}-?[0-9]{4}$',
              description:
                'The manager account the calling account (the credentials, or the schedule account) is a user of',
            }),
          ),
          user_list_id: Type.String({
            pattern: '^[0-9]{1,24}$',
            description: 'The Customer Match user list',
          }),
          terms_of_service: Type.Optional(
            Type.Literal('accepted', {
              description:
                'The advertiser accepted Google’s Customer Match terms (support.google.com/adspolicy/answer/6299717): sent as termsOfService ACCEPTED with every upload, which Google requires to add members',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      audience: Type.Object(
        {
          key: Type.String({
            pattern: '^[a-z][a-z0-9_]{0,99}$',
            description:
              'The audience key (Engage’s computation_key): the trait or property set true when a row enters the model and false when it leaves',
          }),
          call: Type.Optional(
            Type.Union([Type.Literal('identify'), Type.Literal('track')], {
              description:
                'identify (default): traits.<key> true/false; track: Audience Entered / Audience Exited with properties.<key>',
            }),
          ),
          id: Type.Optional(
            Type.String({
              pattern: '^[A-Za-z0-9_-]{1,64}$',
              description: 'The audience’s id (computation_id); default: derived from the sync and the key',
            }),
          ),
          space_id: Type.Optional(
            Type.String({
              pattern: '^[A-Za-z0-9_-]{1,64}$',
              description: 'The space the audience belongs to (space_id); default: eventbus',
            }),
          ),
          external_audience_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 256,
              description:
                'The audience’s id at the platform, where its actions read one (external_audience_id)',
            }),
          ),
          settings: Type.Optional(
            Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.Unknown(), {
              description: 'The audience’s settings at the platform (audience_settings): an advertiser id…',
            }),
          ),
          destinations: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
            minItems: 1,
            maxItems: 100,
            description:
              'The destinations (their ids) the audience is connected to: only they get its events, as in Engage',
          }),
          topic: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      topic: Type.Object(
        {
          event_name: Type.String({ minLength: 1, maxLength: 64 }),
          topic: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
]);

export const SyncSpec = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'A single SELECT (BigQuery SQL), or a table or view as dataset.table',
    }),
    primary_key: Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 300 }), {
      minItems: 1,
      maxItems: 8,
    }),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        maxLength: 300,
        description:
          'A column that grows when a row changes (updated_at, a sequence): each run reads only rows past the last one sent',
      }),
    ),
    mode: Type.Union([
      Type.Literal('insert'),
      Type.Literal('upsert'),
      Type.Literal('mirror'),
      Type.Literal('full'),
    ]),
    schedule: Type.Union([
      Schedule,
      Type.Object({ manual: Type.Literal(true) }, { additionalProperties: false }),
    ]),
    destination: SyncDestination,
    fields: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_.]*$' }), FieldSource, {
        description: 'What each row becomes, in the mapping language (default: the row as it is)',
      }),
    ),
    batch_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Rows per request or file part (default 500)',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  { additionalProperties: false },
);
export type SyncSpec = Static<typeof SyncSpec>;
export type SyncDestination = Static<typeof SyncDestination>;
