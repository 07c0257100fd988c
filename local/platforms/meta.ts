/**
 * A loopback Meta Conversions API (`POST /{version}/{pixel}/events?access_token=`), customer
 * list custom audiences (`POST|DELETE /{version}/{audience}/users`, what syncs send) and the
 * Dataset Quality API (`GET /{version}/dataset_quality?dataset_id=`, what the scheduler's
 * diagnostics ask), checking requests against Meta's published rules (docs/platforms.md §1,
 * docs/syncs.md) and answering in Graph API shapes.
 */
import {
  type Answer,
  countedOf,
  isHashed,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const ACTION_SOURCES = [
  'email',
  'website',
  'app',
  'phone_call',
  'chat',
  'physical_store',
  'system_generated',
  'business_messaging',
  'other',
];
const HASHED = ['em', 'ph', 'fn', 'ln', 'ge', 'db', 'ct', 'st', 'zp', 'country'];
const PLAIN = ['client_ip_address', 'client_user_agent', 'fbc', 'fbp'];

const graphError = (
  status: number,
  code: number,
  message: string,
  subcode?: number,
  problems: string[] = [],
): Answer => ({
  status,
  problems: problems.length > 0 ? problems : [message],
  body: {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(subcode !== undefined ? { error_subcode: subcode } : {}),
      is_transient: false,
      error_user_title: message,
      error_user_msg: problems.join('; ') || message,
      fbtrace_id: 'AbCdEfGh123',
    },
  },
});

/** Audience schema keys Meta documents, and those it takes unhashed. */
const AUDIENCE_KEYS = new Set([
  'EMAIL',
  'PHONE',
  'GEN',
  'DOBY',
  'DOBM',
  'DOBD',
  'LN',
  'FN',
  'FI',
  'CT',
  'ST',
  'ZIP',
  'MADID',
  'COUNTRY',
  'EXTERN_ID',
]);
const AUDIENCE_PLAIN = new Set(['MADID', 'EXTERN_ID']);

/**
 * `/{audience}/users`: a `payload` of `schema` (one key or a list) and `data` (1 to 10,000 rows,
 * each as wide as the schema, hashed where Meta wants hashes, '' for a missing value), with an
 * optional upload `session`. A row with nothing in it is an invalid entry (counted, not refused).
 */
function audienceUsers(method: string, path: string, body: unknown): Answer {
  if (method !== 'POST' && method !== 'DELETE')
    return graphError(400, 100, `(#100) ${method} is not supported on ${path}`);
  const payload = isObject(body) ? body['payload'] : undefined;
  if (!isObject(payload)) return graphError(400, 100, '(#100) The parameter payload is required');
  const schema = typeof payload['schema'] === 'string' ? [payload['schema']] : payload['schema'];
  const data = payload['data'];
  if (!Array.isArray(schema) || schema.length === 0 || !schema.every((k) => AUDIENCE_KEYS.has(k as string)))
    return graphError(400, 100, '(#100) payload.schema must name keys Meta knows (EMAIL, PHONE, FN, …)');
  if (!Array.isArray(data) || data.length === 0 || data.length > 10_000)
    return graphError(
      400,
      100,
      `(#100) payload.data must hold 1 to 10000 rows, got ${Array.isArray(data) ? data.length : 'none'}`,
    );
  const problems: string[] = [];
  let invalid = 0;
  for (const [i, raw] of data.entries()) {
    const row = schema.length === 1 && typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(row) || row.length !== schema.length) {
      problems.push(`payload.data[${i}] must hold ${schema.length} value(s), one per schema key`);
      continue;
    }
    if (row.every((v) => v === '')) invalid++;
    row.forEach((v, j) => {
      const k = schema[j] as string;
      if (typeof v !== 'string') problems.push(`payload.data[${i}][${j}] (${k}) must be a string`);
      else if (v !== '' && !AUDIENCE_PLAIN.has(k) && !SHA256_HEX.test(v))
        problems.push(`payload.data[${i}][${j}] (${k}) must be SHA-256 hashed`);
    });
  }
  const session = isObject(body) ? body['session'] : undefined;
  if (session !== undefined) {
    if (
      !isObject(session) ||
      !Number.isSafeInteger(session['session_id']) ||
      !Number.isInteger(session['batch_seq']) ||
      (session['batch_seq'] as number) < 1 ||
      typeof session['last_batch_flag'] !== 'boolean'
    )
      problems.push('session needs session_id (an integer), batch_seq (from 1) and last_batch_flag');
  }
  if (problems.length > 0)
    return graphError(400, 100, '(#100) Invalid parameter', undefined, problems.slice(0, 20));
  return {
    status: 200,
    body: {
      audience_id: path.split('/')[2],
      session_id: isObject(session) ? session['session_id'] : undefined,
      num_received: data.length,
      num_invalid_entries: invalid,
      invalid_entry_samples: {},
    },
  };
}

/** Meta's names for the match keys of `user_data` (as its Dataset Quality answers name them). */
const MATCH_KEYS: Readonly<Record<string, string>> = {
  em: 'email',
  ph: 'phone',
  fn: 'first_name',
  ln: 'last_name',
  ge: 'gender',
  db: 'date_of_birth',
  ct: 'city',
  st: 'state',
  zp: 'zip',
  country: 'country',
  external_id: 'external_id',
  client_ip_address: 'ip_address',
  client_user_agent: 'user_agent',
  fbc: 'fbc',
  fbp: 'fbp',
};
/**
 * How much each key adds to the stand-in's match quality at full coverage (out of 10). Not Meta's
 * formula, which it does not publish: only its direction (e-mail and phone count most).
 */
const KEY_WEIGHT: Readonly<Record<string, number>> = {
  email: 4,
  phone: 3,
  external_id: 1.5,
  ip_address: 1,
  fbc: 1,
  user_agent: 0.5,
  fbp: 0.5,
};

/** What the stand-in saw of one event name on one pixel: events, and events per match key. */
interface Seen {
  events: number;
  withEventId: number;
  keys: Map<string, number>;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The `web[]` entries of a Dataset Quality answer for what a pixel received (Meta's documented shape). */
function qualityOf(seen: ReadonlyMap<string, Seen>): Record<string, unknown>[] {
  return [...seen.entries()].map(([event_name, s]) => {
    const coverage = [...s.keys.entries()].map(([identifier, n]) => ({
      identifier,
      coverage: { percentage: round1((100 * n) / s.events) },
    }));
    const score = coverage.reduce(
      (sum, k) => sum + (KEY_WEIGHT[k.identifier] ?? 0.3) * (k.coverage.percentage / 100),
      0,
    );
    const withId = round1((100 * s.withEventId) / s.events);
    return {
      event_name,
      event_match_quality: { composite_score: Math.min(10, round1(score)), match_key_feedback: coverage },
      // Nothing comes from a browser pixel here: coverage and dedup as Meta reports a server-only event.
      event_coverage: { percentage: 0, goal_percentage: 75 },
      dedupe_key_feedback: [
        {
          dedupe_key: 'event_id',
          browser_events_with_dedupe_key: { percentage: 0 },
          server_events_with_dedupe_key: { percentage: withId },
          overall_browser_coverage_from_dedupe_key: { percentage: 0 },
        },
      ],
      data_freshness: { upload_frequency: 'real_time' },
    };
  });
}

/** The Graph API's answer about an object it does not know (or the token may not see). */
const unknownObject = (id: string): Answer =>
  graphError(
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    33,
  );

/**
 * `GET /{version}/dataset_quality`: `dataset_id` required and known (a pixel named in the options or
 * one that received events here), `fields` asking for `web`; the answer `{web: [...]}` (Meta's
 * Dataset Quality API page).
 */
function datasetQuality(
  method: string,
  query: Readonly<Record<string, string>>,
  known: ReadonlySet<string>,
  received: ReadonlyMap<string, ReadonlyMap<string, Seen>>,
): Answer {
  if (method !== 'GET') return graphError(400, 100, `(#100) ${method} is not supported on dataset_quality`);
  const id = query['dataset_id'];
  if (!id) return graphError(400, 100, '(#100) The parameter dataset_id is required');
  if (!known.has(id) && !received.has(id)) return unknownObject(id);
  const fields = query['fields'];
  if (fields !== undefined && !/^web(\{|$)/.test(fields))
    return graphError(400, 100, '(#100) fields must ask for web{…}');
  return { status: 200, body: { web: qualityOf(received.get(id) ?? new Map()) } };
}

/**
 * `GET /{version}/{pixel}/stats?aggregation=event&start_time&end_time` (the Graph API's Ads Pixel
 * stats edge): the events the pixel received per hour and event name, `{data: [{start_time,
 * aggregation, data: [{value, count}]}]}`, counted by event_time, less the configured shortfall.
 * `aggregation` is required here (Meta documents others; only `event` is served).
 */
function pixelStats(
  method: string,
  pixel: string,
  query: Readonly<Record<string, string>>,
  known: ReadonlySet<string>,
  hours: ReadonlyMap<string, ReadonlyMap<number, ReadonlyMap<string, number>>>,
  shortfall: number | undefined,
): Answer {
  if (method !== 'GET') return graphError(400, 100, `(#100) ${method} is not supported on stats`);
  if (!known.has(pixel) && !hours.has(pixel)) return unknownObject(pixel);
  if (query['aggregation'] !== 'event')
    return graphError(
      400,
      100,
      '(#100) aggregation must be one of the documented values; this stand-in serves event',
    );
  const start = Number(query['start_time'] ?? 0);
  const end = Number(query['end_time'] ?? Number.MAX_SAFE_INTEGER);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start)
    return graphError(400, 100, '(#100) start_time and end_time must be unix seconds, end after start');
  const data = [...(hours.get(pixel) ?? new Map<number, ReadonlyMap<string, number>>())]
    .filter(([hour]) => hour >= start && hour < end)
    .sort(([a], [b]) => a - b)
    .map(([hour, names]) => ({
      start_time: new Date(hour * 1000).toISOString().replace('.000Z', '+0000'),
      aggregation: 'event',
      data: [...names].map(([value, n]) => ({ value, count: countedOf(n, shortfall) })),
    }));
  return { status: 200, body: { data } };
}

export interface MetaReceiverOptions extends ReceiverOptions {
  /** Pixels the Dataset Quality API knows before any event reached them. */
  readonly datasets?: readonly string[];
}

/** Starts the Meta receiver. Answers 200 `{events_received, messages, fbtrace_id}` or a Graph error. */
export function startMetaReceiver(options: MetaReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  const known = new Set(options.datasets ?? []);
  // pixel → event name → what was received, for the Dataset Quality answers.
  const received = new Map<string, Map<string, Seen>>();
  // pixel → hour (unix seconds) → event name → events, for the pixel stats.
  const hours = new Map<string, Map<number, Map<string, number>>>();
  const record = (pixel: string, data: readonly unknown[]) => {
    const byHour = hours.get(pixel) ?? new Map<number, Map<string, number>>();
    hours.set(pixel, byHour);
    for (const e of data) {
      if (!isObject(e) || !Number.isInteger(e['event_time'])) continue;
      const hour = Math.floor((e['event_time'] as number) / 3600) * 3600;
      const names = byHour.get(hour) ?? new Map<string, number>();
      byHour.set(hour, names);
      const name = String(e['event_name']);
      names.set(name, (names.get(name) ?? 0) + 1);
    }
    const events = received.get(pixel) ?? new Map<string, Seen>();
    received.set(pixel, events);
    for (const e of data) {
      const user = isObject(e) ? e['user_data'] : undefined;
      if (!isObject(e) || !isObject(user)) continue;
      const name = String(e['event_name']);
      const s = events.get(name) ?? { events: 0, withEventId: 0, keys: new Map<string, number>() };
      events.set(name, s);
      s.events++;
      if (typeof e['event_id'] === 'string' && e['event_id'] !== '') s.withEventId++;
      for (const [field, key] of Object.entries(MATCH_KEYS))
        if (user[field] !== undefined) s.keys.set(key, (s.keys.get(key) ?? 0) + 1);
    }
  };
  return startPlatformServer(({ method, path, query, body }) => {
    const quality = /^\/v\d+\.\d+\/dataset_quality$/.test(path);
    const users = /^\/v\d+\.\d+\/\d+\/users$/.test(path);
    const stats = /^\/v\d+\.\d+\/(\d+)\/stats$/.exec(path)?.[1];
    if (
      !users &&
      !quality &&
      stats === undefined &&
      (method !== 'POST' || !/^\/v\d+\.\d+\/\d+\/events$/.test(path))
    )
      return graphError(400, 2500, `Unknown path components: ${path}`);
    const token = query['access_token'];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (users) return audienceUsers(method, path, body);
    if (quality) return datasetQuality(method, query, known, received);
    if (stats !== undefined) return pixelStats(method, stats, query, known, hours, options.countShortfall);
    if (!isObject(body) || !Array.isArray(body['data']))
      return graphError(400, 100, '(#100) The parameter data is required');
    const data = body['data'] as unknown[];
    if (data.length === 0 || data.length > 1000)
      return graphError(400, 100, `(#100) data must hold 1 to 1000 events, got ${data.length}`);
    const nowS = Math.floor(now().getTime() / 1000);
    const problems: string[] = [];
    for (const [i, e] of data.entries()) {
      const at = `data[${i}]`;
      if (!isObject(e)) {
        problems.push(`${at} is not an object`);
        continue;
      }
      if (typeof e['event_name'] !== 'string' || e['event_name'] === '')
        problems.push(`${at}.event_name is required`);
      const t = e['event_time'];
      if (!Number.isInteger(t)) problems.push(`${at}.event_time must be an integer (unix seconds)`);
      else {
        const limit = (e['action_source'] === 'physical_store' ? 62 : 7) * 86400;
        // Whole request refused: Meta's documented behaviour for the 7-day window.
        if ((t as number) < nowS - limit)
          return graphError(400, 100, 'Invalid parameter', 2804003, [
            `${at}.event_time: Event Timestamp Too Old`,
          ]);
        if ((t as number) > 1e11) problems.push(`${at}.event_time looks like milliseconds`);
      }
      if (!ACTION_SOURCES.includes(e['action_source'] as string))
        problems.push(`${at}.action_source is invalid`);
      const user = e['user_data'];
      if (!isObject(user)) {
        problems.push(`${at}.user_data is required`);
        continue;
      }
      if (e['action_source'] === 'website') {
        if (typeof user['client_user_agent'] !== 'string')
          problems.push(`${at}.user_data.client_user_agent is required for website events`);
        if (typeof e['event_source_url'] !== 'string')
          problems.push(`${at}.event_source_url is required for website events`);
      }
      for (const f of HASHED)
        if (user[f] !== undefined && !isHashed(user[f]))
          problems.push(`${at}.user_data.${f} must be SHA-256 hashed`);
      for (const f of PLAIN)
        if (typeof user[f] === 'string' && SHA256_HEX.test(user[f] as string))
          problems.push(`${at}.user_data.${f} must not be hashed`);
      if (e['event_name'] === 'Purchase') {
        const c = e['custom_data'];
        if (!isObject(c) || typeof c['value'] !== 'number' || typeof c['currency'] !== 'string')
          problems.push(`${at}.custom_data.value and currency are required for Purchase`);
      }
    }
    if (problems.length > 0) return graphError(400, 100, '(#100) Invalid parameter', undefined, problems);
    // Test events (test_event_code) show in Events Manager's test tab, not in the dataset's quality.
    if (body['test_event_code'] === undefined) record(path.split('/')[2] ?? '', data);
    return { status: 200, body: { events_received: data.length, messages: [], fbtrace_id: 'AbCdEfGh123' } };
  });
}
