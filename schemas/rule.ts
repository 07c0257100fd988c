/**
 * The `spec` of a Rule resource (automated actions, experimental; docs/rules.md): a trigger on
 * stored events, an optional once-per key and period, and up to ten actions. Connections are
 * named by id (settings `connections`), never given as URLs.
 */
import Type, { type Static } from 'typebox';
import { FieldSource, SourcePath } from './mapping.ts';
import { Condition } from './settings.ts';

/** A condition, or a group of them: `{ all: [...] }` holds when every one does, `{ any: [...] }` when one does. */
export const Criterion = Type.Cyclic(
  {
    Criterion: Type.Union([
      Condition,
      Type.Object(
        { all: Type.Array(Type.Ref('Criterion'), { minItems: 1 }) },
        { additionalProperties: false },
      ),
      Type.Object(
        { any: Type.Array(Type.Ref('Criterion'), { minItems: 1 }) },
        { additionalProperties: false },
      ),
    ]),
  },
  'Criterion',
);
export type Criterion = Condition | { all: Criterion[] } | { any: Criterion[] };

export const EventTrigger = Type.Object(
  {
    names: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Event names the rule looks at (default: every event)',
      }),
    ),
    all: Type.Optional(Type.Array(Criterion, { maxItems: 100, description: 'Every criterion must hold' })),
    any: Type.Optional(
      Type.Array(Criterion, { maxItems: 100, description: 'At least one criterion must hold' }),
    ),
  },
  { additionalProperties: false },
);

/** A schedule: an interval (`every: 30m`) or a cron expression in an IANA time zone. */
export const Schedule = Type.Union([
  Type.Object(
    { every: Type.String({ description: '`15m`, `1h`, `1d` (at least `1m`)' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      cron: Type.String({ description: 'Five fields: minute hour day month weekday' }),
      time_zone: Type.Optional(Type.String({ description: 'IANA time zone, default UTC' })),
    },
    { additionalProperties: false },
  ),
]);

/** A query on a schedule: each result row is one trigger (windows and thresholds are written in SQL). */
export const ScheduleTrigger = Type.Object(
  {
    schedule: Schedule,
    sql: Type.String({ minLength: 1, maxLength: 100_000, description: 'A single SELECT (BigQuery SQL)' }),
    max_rows: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Most rows one run fires for (default 1,000)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Fields = Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_.]*$' }), FieldSource);

export const RuleAction = Type.Union([
  Type.Object(
    {
      webhook: Type.Object(
        {
          connection: Type.String({ minLength: 1 }),
          payload: Type.Optional(Fields),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      publish: Type.Object(
        {
          event_name: Type.String({ minLength: 1, maxLength: 64 }),
          topic: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          fields: Type.Optional(Fields),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      chat: Type.Object(
        {
          connection: Type.String({ minLength: 1 }),
          text: Type.String({ minLength: 1, maxLength: 4000, description: 'With {{path}} placeholders' }),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
]);

export const RuleSpec = Type.Object(
  {
    trigger: Type.Union([
      Type.Object({ event: EventTrigger }, { additionalProperties: false }),
      ScheduleTrigger,
    ]),
    once_per: Type.Optional(
      Type.Object(
        {
          key: SourcePath,
          period: Type.String({
            pattern: '^([0-9]{1,6}[mhd]|forever)$',
            description: '`1d`, `12h`, `30m` or `forever`',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    actions: Type.Array(RuleAction, { minItems: 1, maxItems: 10 }),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
    dry_run: Type.Optional(
      Type.Boolean({ description: 'Record what would fire in action_runs, send nothing' }),
    ),
  },
  { additionalProperties: false },
);
export type RuleSpec = Static<typeof RuleSpec>;
export type RuleAction = Static<typeof RuleAction>;
export type EventTrigger = Static<typeof EventTrigger>;
