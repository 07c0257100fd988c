/**
 * The warehouse (`warehouse` in the settings): partition expiry, time travel, how long each table
 * keeps a partition, query caps, and the incremental models the scheduler keeps.
 */
import Type, { type Static } from 'typebox';

/**
 * The incremental models the scheduler keeps in the events dataset (docs/sessions.md): sessions,
 * the identity map and the first/last-touch views over them.
 */
export const WarehouseModels = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({ description: 'Keep sessions and identity_map up to date (default true)' }),
    ),
    every: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,6}(m|h|d)$',
        description: 'How often the Model job runs (default 15m; at least 1m)',
      }),
    ),
    session_gap_minutes: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1440, description: 'Inactivity that ends a session (default 30)' }),
    ),
    lookback_hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 8784,
        description: 'How old an arriving event may be and still be modelled incrementally (default 72)',
      }),
    ),
    conversions: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        description:
          'Event names that are conversions (default purchase, generate_lead, lead, sign_up, subscribe, begin_checkout)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WarehouseModels = Static<typeof WarehouseModels>;

/** The BigQuery datasets: retention, time travel, protection, query cap, models. */
export const WarehouseSettings = Type.Object(
  {
    partition_expiration_days: Type.Optional(Type.Integer({ minimum: 1 })),
    time_travel_hours: Type.Optional(
      Type.Integer({
        minimum: 48,
        maximum: 168,
        multipleOf: 24,
        description:
          'Hours BigQuery keeps changed and deleted rows for time travel in both datasets (48–168, whole days; BigQuery’s default 168); the 7-day fail-safe after it cannot be shortened (docs/privacy.md#time-travel-and-fail-safe)',
      }),
    ),
    retention: Type.Optional(
      Type.Object(
        {
          events: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: "Days `events` partitions are kept; default none (the business's own record)",
            }),
          ),
          invalid_events: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `invalid_events` partitions are kept; default 90',
            }),
          ),
          deliveries: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days the delivery ledger (`deliveries`) keeps a partition; default 400',
            }),
          ),
          hook_failures: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `hook_failures` partitions are kept; default 90',
            }),
          ),
          action_runs: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `action_runs` (rules) partitions are kept; default 400',
            }),
          ),
          gateway_refusals: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `gateway_refusals` (ops dataset) partitions are kept; default 30',
            }),
          ),
          sync_failed_rows: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `sync_failed_rows` (ops dataset) partitions are kept; default 90',
            }),
          ),
          sessions: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `sessions` (the models) partitions are kept; default as `events`',
            }),
          ),
          platform_diagnostics: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Days `platform_diagnostics` (ops dataset) partitions are kept; default 400',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Days each table keeps a partition (docs/privacy.md#retention); a table not named takes partition_expiration_days, else its default',
        },
      ),
    ),
    deletion_protection: Type.Optional(Type.Boolean({ default: true })),
    max_bytes_billed: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Cap on the bytes one query people write (eventbus sql) may bill; default 10 GiB',
      }),
    ),
    models: Type.Optional(WarehouseModels),
  },
  { additionalProperties: false },
);
export type WarehouseSettings = Static<typeof WarehouseSettings>;
