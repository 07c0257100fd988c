/**
 * Parsing and checking an environment's settings: YAML text in, frozen settings with
 * defaults applied (or every error at once, each naming its key) out. Pure: reading the
 * file is the caller's job.
 */
import { LineCounter, parseDocument } from 'yaml';
import { DURATION_PATTERN, Settings } from '../schemas/settings.ts';
import { checkDestinationRules } from './destination-rules.ts';
import { checkMappings } from './platforms/mapping-check.ts';
import { type FieldViolation, interpretedValidator } from './validation.ts';

// Settings are checked about once per process (cold start, a CLI command): interpreting the
// schema is cheaper than compiling it first.
const validator = interpretedValidator<Settings>(Settings, {
  patterns: new Map([[DURATION_PATTERN, 'expected a duration like 10s or 5m']]),
});

/** The functions Pub/Sub pushes to, and the longest ack deadline a push subscription may have. */
const PUSHED_FUNCTIONS = ['store', 'forward', 'schedule'] as const;
const MAX_ACK_DEADLINE_SECONDS = 600;

/** Topic names the environment uses itself; extra topics cannot take them. */
export const RESERVED_TOPICS = Object.freeze(['events', 'deliveries']);

export type LoadResult =
  | { readonly ok: true; readonly settings: Readonly<Settings> }
  | { readonly ok: false; readonly errors: readonly FieldViolation[] };

/** Parses YAML settings text, validates it and returns deep-frozen settings or all errors. */
export function parseSettings(text: string): LoadResult {
  // The counter maps each error's offset to a line and column (without it, `linePos` is unset
  // when prettyErrors is off, and the message said "line ?").
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const at = lines.linePos(e.pos[0]);
        return {
          field: '(yaml)',
          description: `line ${at.line}, column ${at.col}: ${e.message.split('\n')[0]}`,
        };
      }),
    };
  }
  return checkSettings(doc.toJS());
}

/** Validates an already-parsed settings object (schema first, then rules across keys). */
export function checkSettings(value: unknown): LoadResult {
  const schemaErrors = validator.violations(value);
  if (schemaErrors.length > 0) return { ok: false, errors: schemaErrors };
  const settings = value as Settings;
  const errors: FieldViolation[] = [];
  const topics = settings.topics ?? [];
  topics.forEach((t, i) => {
    if (RESERVED_TOPICS.includes(t))
      errors.push({ field: `topics[${i}]`, description: `"${t}" is created by every environment` });
    if (topics.indexOf(t) !== i)
      errors.push({ field: `topics[${i}]`, description: `duplicate topic "${t}"` });
  });
  const ids = new Set<string>();
  (settings.destinations ?? []).forEach((d, i) => {
    if (ids.has(d.id))
      errors.push({ field: `destinations[${i}].id`, description: `duplicate destination id "${d.id}"` });
    ids.add(d.id);
    const retry = d.retry ?? {};
    if (
      retry.minimum_backoff &&
      retry.maximum_backoff &&
      seconds(retry.minimum_backoff) > seconds(retry.maximum_backoff)
    ) {
      errors.push({
        field: `destinations[${i}].retry.minimum_backoff`,
        description: 'is larger than maximum_backoff',
      });
    }
    for (const key of ['minimum_backoff', 'maximum_backoff'] as const) {
      const v = retry[key];
      if (v !== undefined && seconds(v) > 600)
        errors.push({ field: `destinations[${i}].retry.${key}`, description: 'must be at most 600s' });
    }
  });
  // Pub/Sub pushes to these: a push's ack deadline (at most 600 s) must cover the function's run,
  // or a slow run is redelivered while it goes on (plan() raises each deadline to the timeout).
  for (const fn of PUSHED_FUNCTIONS) {
    const timeout = settings.functions?.[fn]?.timeout_seconds;
    if (timeout !== undefined && timeout > MAX_ACK_DEADLINE_SECONDS)
      errors.push({
        field: `functions.${fn}.timeout_seconds`,
        description: `must be at most ${MAX_ACK_DEADLINE_SECONDS}: Pub/Sub pushes to ${fn}, and a push's ack deadline (at most ${MAX_ACK_DEADLINE_SECONDS} s) must outlast the function's run`,
      });
  }
  errors.push(...checkDestinationRules(settings));
  errors.push(...checkMappings(settings));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, settings: deepFreeze(structuredClone(settings)) };
}

/** Formats errors one per line, `key: message`, as the CLI and Pulumi print them. */
export function formatErrors(errors: readonly FieldViolation[]): string {
  return errors.map((e) => `${e.field}: ${e.description}`).join('\n');
}

/** Parses a settings duration such as "10s", "0.5s" or "5m" into seconds. */
export function seconds(duration: string): number {
  const n = Number(duration.slice(0, -1));
  return duration.endsWith('m') ? n * 60 : n;
}

/** A settings duration as protobuf JSON (seconds: "5m" → "300s"), the form Pub/Sub takes. */
export function protoDuration(duration: string): string {
  return `${seconds(duration)}s`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
