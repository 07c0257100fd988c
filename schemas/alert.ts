/**
 * The `spec` of an Alert resource (docs/alerts.md): one condition over the warehouse, a
 * schedule it is evaluated on, the settings connection (chat or webhook) it notifies, and how
 * many clear evaluations in a row resolve an incident.
 */
import Type, { type Static } from 'typebox';
import { Schedule } from './rule.ts';

const Duration = (description: string) => Type.String({ description });
const Share = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

export const AlertCondition = Type.Union([
  Type.Object(
    {
      failure_rate: Type.Object(
        {
          destination: Name('A destination id of the settings'),
          above: Share('Fires when failed / attempted is above this share (0–1)'),
          window: Duration('How far back each evaluation looks (`15m`, `1h`)'),
          min_attempts: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000,
              description: 'Fewer ledger rows never fire (default 10)',
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
      source_quiet: Type.Object(
        {
          source: Type.Optional(Name('The events’ `source` (default: any)')),
          event_name: Type.Optional(Name('An event name (default: any)')),
          for: Duration('Fires when no such event was received for this long (`30m`)'),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      volume_change: Type.Object(
        {
          event_name: Type.Optional(Name('An event name (default: every event)')),
          drop_above: Type.Optional(
            Share('Fires when the last hour has this share fewer events than a week ago'),
          ),
          rise_above: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1000,
              description: 'Fires when the last hour has this share more',
            }),
          ),
          min_baseline: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000_000,
              description: 'Fewer events a week ago never fire (default 20)',
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
      invalid_share: Type.Object(
        {
          above: Share('Fires when invalid / (stored + invalid) is above this share'),
          window: Duration('How far back each evaluation looks'),
          min_events: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000_000,
              description: 'Fewer events never fire (default 20)',
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
      latency: Type.Object(
        {
          destination: Name('A destination id of the settings'),
          percentile: Type.Optional(
            Type.Union([Type.Literal(50), Type.Literal(95), Type.Literal(99)], {
              description: 'Which percentile of the delivered rows’ latency (default 95)',
            }),
          ),
          above: Duration(
            'Fires when that percentile of end-to-end delivery latency (receipt to delivered row) is above this (`500ms`, `2s`, `1m`)',
          ),
          window: Duration('How far back each evaluation looks (`15m`, `1h`)'),
          min_deliveries: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000,
              description: 'Fewer delivered rows never fire (default 10)',
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
      success_drop: Type.Object(
        {
          destination: Name('A destination id of the settings'),
          window: Duration('The recent window whose success rate is judged (`15m`, `1h`)'),
          baseline: Duration('The window just before it, the rate it is compared with (`1h`, `1d`)'),
          drop: Type.Number({
            exclusiveMinimum: 0,
            maximum: 100,
            description:
              'Fires when the window’s success rate (delivered / attempts) is at least this many percentage points under the baseline’s',
          }),
          min_attempts: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000,
              description: 'Fewer attempts in either window never fire (default 10)',
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
      erasure_failures: Type.Object(
        {
          window: Duration(
            'How far back each evaluation looks: fires while an erasure request that ended complete_with_failures (a platform still holds the person) completed within it',
          ),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      counted_below: Type.Object(
        {
          destination: Name('A destination id of the settings whose platform reports counts'),
          below: Type.Optional(
            Share(
              'Fires when the platform counted less than this share of what it accepted, on the newest day it reported in the last three (default 0.95)',
            ),
          ),
          min_accepted: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000_000,
              description: 'Days with fewer accepted events never fire (default 20)',
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
      sent_below: Type.Object(
        {
          destination: Name('A destination id of the settings'),
          below: Type.Optional(
            Share(
              'Fires when fewer than this share of the permitted events of yesterday and today were sent (default 0.95)',
            ),
          ),
          min_permitted: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000_000,
              description: 'Fewer permitted events never fire (default 20)',
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
      went_quiet: Type.Object(
        {
          destination: Name('A destination id of the settings'),
          min_baseline: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1_000_000_000,
              description:
                'Fires only when the destination delivered at least this many events in the same hour a week earlier (default 20)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
]);
export type AlertCondition = Static<typeof AlertCondition>;

export const AlertSpec = Type.Object(
  {
    condition: AlertCondition,
    schedule: Schedule,
    notify: Type.Object(
      {
        connection: Type.String({
          minLength: 1,
          description: 'A chat or webhook connection of the settings',
        }),
      },
      { additionalProperties: false },
    ),
    clear_after: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Clear evaluations in a row that resolve an incident (default 2: no flapping)',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  { additionalProperties: false },
);
export type AlertSpec = Static<typeof AlertSpec>;
