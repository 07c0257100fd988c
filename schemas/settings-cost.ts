/**
 * What the deployment costs (`cost` and `functions` in the settings): billing of the pushed
 * functions, the rates `forward` is sized for, and each function's Cloud Run sizing.
 */
import Type, { type Static } from 'typebox';

export const FunctionSizing = Type.Object(
  {
    memory: Type.Optional(Type.String({ pattern: '^[0-9]+(Mi|Gi)$' })),
    cpu: Type.Optional(Type.Number({ minimum: 0.08, maximum: 8 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    min_instances: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    max_instances: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  },
  { additionalProperties: false },
);
export type FunctionSizing = Static<typeof FunctionSizing>;

/**
 * Cloud Run billing of a pushed function: `request` (a Cloud Function, billed per request while
 * it handles one) or `instance` (a Cloud Run service with CPU always allocated, billed for its
 * instances' lifetime, no request fee). docs/deploy.md says how each is deployed.
 */
export const Billing = Type.Union([Type.Literal('request'), Type.Literal('instance')]);

/** Production cost choices: request logs, rates, billing (docs/scale.md). */
export const CostSettings = Type.Object(
  {
    exclude_success_logs: Type.Optional(
      Type.Boolean({
        description:
          'Exclude Cloud Run request logs of successful publishes and pushes (errors and refusals are kept)',
        default: true,
      }),
    ),
    peak_events_per_second: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000000,
        description:
          'Peak rate `forward` is sized for (concurrency, max_instances) unless functions.forward sets them; sizing only, never billing',
        default: 5000,
      }),
    ),
    sustained_events_per_second: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1000000,
        description:
          'The steady rate you expect (events a second, around the clock): `settings check` and `pulumi up` recommend instance-based billing where it passes the break-even, with the monthly figures both ways; never switches by itself',
      }),
    ),
    billing: Type.Optional(
      Type.Object(
        {
          store: Type.Optional(Billing),
          forward: Type.Optional(Billing),
          gateway: Type.Optional(Billing),
        },
        {
          additionalProperties: false,
          description:
            'Cloud Run billing of the pushed functions and the gateway; unset, `request` for a new stack: store and forward as Cloud Functions (gen2), the design, and the gateway without CPU between requests; an existing stack keeps the store and forward billing it runs (docs/deploy.md, Upgrading)',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Production cost choices (docs/scale.md)' },
);
export type CostSettings = Static<typeof CostSettings>;

/** Cloud Run sizing of each function; unset fields take the plan's defaults. */
export const FunctionsSettings = Type.Object(
  {
    store: Type.Optional(FunctionSizing),
    forward: Type.Optional(FunctionSizing),
    gateway: Type.Optional(FunctionSizing),
    schedule: Type.Optional(FunctionSizing),
    studio: Type.Optional(FunctionSizing),
  },
  { additionalProperties: false },
);
export type FunctionsSettings = Static<typeof FunctionsSettings>;
