/**
 * Parsing and checking an environment's settings: YAML text in, frozen settings with
 * defaults applied (or every error at once, each naming its key) out. Pure: reading the
 * file is the caller's job.
 */
import { LineCounter, parseDocument } from 'yaml';
import { DURATION_PATTERN, Settings } from '../schemas/settings.ts';
import { ZONE_PATTERN } from '../schemas/settings-claims.ts';
import { DOMAIN_PATTERN, ORIGIN_PATH_PATTERN, SITE_BACKEND_PATTERN } from '../schemas/settings-gateway.ts';
import { SITE_HOST_PATTERN, SITE_URL_MAP_PATTERN } from '../schemas/site-url-map.ts';
import { claimsSettingsErrors } from './claims/claims-plan.ts';
import { checkDestinationNeeds } from './decision/destination-checks.ts';
import {
  DELIVERIES_TOPIC_PREFIX,
  destinationSubscriptionName,
  forwardSubscriptionName,
} from './deploy/deliveries-topology.ts';
import { claimsLocationErrors } from './deploy/firestore-locations.ts';
import { siteUrlMapRefusals } from './deploy/site-url-map.ts';
import { checkStudioIap } from './deploy/studio-iap.ts';
import { pointsInside } from './egress/policy.ts';
import { checkMappings } from './platforms/mapping-check.ts';
import { type FieldViolation, interpretedValidator } from './validation.ts';

// Settings are checked about once per process (cold start, a CLI command): interpreting the
// schema is cheaper than compiling it first.
const validator = interpretedValidator<Settings>(Settings, {
  patterns: new Map([
    [DURATION_PATTERN, 'expected a duration like 10s or 5m'],
    [DOMAIN_PATTERN, 'expected a domain in lower case, like acme.com'],
    [
      ORIGIN_PATH_PATTERN,
      'expected one path segment after a slash, like /_eb: lower-case letters, digits, - or _, at most 32 of them, no slash at the end',
    ],
    [
      SITE_BACKEND_PATTERN,
      'expected the name of a global backend service (lower case, like shop-web-backend) or its URL, projects/<project>/global/backendServices/<name>',
    ],
    [
      SITE_URL_MAP_PATTERN,
      'expected the name of a global URL map (lower case, like shop-lb) or its URL, projects/<project>/global/urlMaps/<name>',
    ],
    [SITE_HOST_PATTERN, 'expected a host in lower case, like shop.example or *.shop.example'],
    [ZONE_PATTERN, 'expected a zone of the region, like europe-west1-b'],
  ]),
});

/** The functions Pub/Sub pushes to, and the longest ack deadline a push subscription may have. */
const PUSHED_FUNCTIONS = ['store', 'forward', 'schedule'] as const;
const MAX_ACK_DEADLINE_SECONDS = 600;

/** Topic names the environment uses itself; extra topics cannot take them. */
export const RESERVED_TOPICS = Object.freeze(['events', 'deliveries', 'ticks', 'runs', 'actions', 'poison']);
/** The prefix of the destinations' delivery topics (deliveriesTopicName). */
const DELIVERIES_PREFIX = DELIVERIES_TOPIC_PREFIX;
/**
 * The suffixes core/plan.ts adds to names it derives from a destination id: its dead-letter
 * topic's, and its push subscription's on its own topic.
 */
const CLASHING_SUFFIXES = [
  '-dead-letter',
  destinationSubscriptionName('x', 'per_destination').slice(forwardSubscriptionName('x').length),
];

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
  let value: unknown;
  try {
    // Aliases that expand past the library's limit (a "billion laughs") throw here.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return {
      ok: false,
      errors: [{ field: '(yaml)', description: (err as Error).message.split('\n')[0] ?? '' }],
    };
  }
  return checkSettings(value);
}

/** Validates an already-parsed settings object (schema first, then rules across keys). */
export function checkSettings(value: unknown): LoadResult {
  const schemaErrors = validator.violations(value);
  if (schemaErrors.length > 0) return { ok: false, errors: schemaErrors };
  const settings = value as Settings;
  const errors: FieldViolation[] = [];
  const g = settings.gateway;
  // The site's load balancer (origin_via's default) needs the site's own URL map the path rule is
  // added to (or, the previous release's form, the backend its whole map kept); refused here, so
  // `settings check` says it and `npm start` stops with one line rather than the program's throw
  // (infra/gateway-origin-path.ts, originPathRefusal, issues #96, #100). A Worker or an Akamai
  // rule routes the path itself: no map to name.
  if (
    g?.origin_path &&
    (g.origin_via ?? 'load_balancer') === 'load_balancer' &&
    !g.site_backend &&
    !g.site_url_map
  )
    errors.push({
      field: 'gateway.origin_path',
      description:
        'needs gateway.site_url_map (your site’s own load balancer URL map, which gets a path rule to the ' +
        'gateway added), or gateway.origin_via: cloudflare or akamai where a Worker or rule routes the path',
    });
  errors.push(...siteUrlMapRefusals(settings.project, g));
  for (const key of ['site_backend', 'origin_via'] as const)
    if (g?.[key] && !g.origin_path)
      errors.push({ field: `gateway.${key}`, description: 'only means something with gateway.origin_path' });
  if (g?.site_backend && g.origin_via && g.origin_via !== 'load_balancer')
    errors.push({
      field: 'gateway.site_backend',
      description:
        `only means something with origin_via: load_balancer: with ${g.origin_via} the ` +
        'Worker or rule in front of the site routes the path, and no Google load balancer is declared',
    });
  const topics = settings.topics ?? [];
  topics.forEach((t, i) => {
    if (RESERVED_TOPICS.includes(t))
      errors.push({ field: `topics[${i}]`, description: `"${t}" is created by every environment` });
    if (topics.indexOf(t) !== i)
      errors.push({ field: `topics[${i}]`, description: `duplicate topic "${t}"` });
    if (t.startsWith(DELIVERIES_PREFIX))
      errors.push({
        field: `topics[${i}]`,
        description: `"${t}" starts with "${DELIVERIES_PREFIX}", the prefix of the destinations' delivery topics`,
      });
  });
  const ids = new Set<string>();
  const allIds = new Set((settings.destinations ?? []).map((d) => d.id));
  (settings.destinations ?? []).forEach((d, i) => {
    if (ids.has(d.id))
      errors.push({ field: `destinations[${i}].id`, description: `duplicate destination id "${d.id}"` });
    ids.add(d.id);
    // `deliveries-<id>` is a topic and `deliveries-<id>-push` a subscription (core/plan.ts): an id
    // that is another's plus one of these suffixes would name that other's dead-letter topic or
    // the other's subscription.
    const clash = CLASHING_SUFFIXES.find((x) => d.id.endsWith(x) && allIds.has(d.id.slice(0, -x.length)));
    if (clash)
      errors.push({
        field: `destinations[${i}].id`,
        description: `"${d.id}" would share a Pub/Sub name with destination "${d.id.slice(0, -clash.length)}" (ids may not be another's plus "${clash}")`,
      });
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
  errors.push(...checkDestinationNeeds(settings));
  errors.push(...checkMappings(settings));
  errors.push(...checkStudioIap(settings));
  errors.push(...claimsLocationErrors(settings));
  errors.push(...claimsSettingsErrors(settings));
  errors.push(...eventUrlRefusals(settings));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, settings: deepFreeze(structuredClone(settings)) };
}

/** The environment `npm start` runs (environments/local.yaml), where loopback URLs are the point. */
export const LOCAL_ENVIRONMENT = 'local';

/**
 * Warnings (not errors) for URLs of the settings that point at the cloud metadata server or
 * link-local addresses (169.254.0.0/16, metadata.google.internal: a request there can read the
 * service account's token) or, in any environment but the local one, at loopback addresses
 * (localhost, 127.0.0.0/8, ::1, 0.0.0.0: in the cloud that is the function itself). Hosts are read
 * as a URL parser reads them, so `http://2852039166/` is 169.254.169.254 too. URLs kept in
 * secrets (`url_secret`) are not known here.
 */
export function addressWarnings(settings: Readonly<Settings>): string[] {
  const urls: { key: string; url: string }[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    if (d.base_url) urls.push({ key: `destinations[${i}].base_url`, url: d.base_url });
    const configured = d.config?.['url'];
    if (typeof configured === 'string') urls.push({ key: `destinations[${i}].config.url`, url: configured });
  });
  (settings.connections ?? []).forEach((c, i) => {
    if (c.url) urls.push({ key: `connections[${i}].url`, url: c.url });
  });
  (settings.destinations ?? []).forEach((d, i) => {
    for (const [j, a] of (d.actions ?? []).entries())
      for (const literal of mappingLiterals(a.mapping, `destinations[${i}].actions[${j}].mapping`))
        urls.push(literal);
  });
  const out: string[] = [];
  for (const { key, url } of urls) {
    const kind = addressKind(url);
    if (kind === 'metadata')
      out.push(`${key}: ${url} is the metadata server or a link-local address: it can hand out credentials`);
    else if (kind === 'loopback') {
      if (settings.name !== LOCAL_ENVIRONMENT)
        out.push(
          `${key}: ${url} is a loopback address: outside the local environment it reaches the service itself`,
        );
    } else {
      const inside = pointsInside(url);
      if (inside)
        out.push(
          `${key}: ${url} points inside (${inside.replace(/^.*? is /, '')}): the egress gate refuses it`,
        );
    }
  }
  return out;
}

/** Keys of a mapping whose value, read from the event, would choose where a request goes or what it carries. */
const STEERING_KEY = /(url|uri|endpoint|host|headers?)$/i;

/**
 * Refusals for actions whose mapping reads a URL or a header from the event (a directive such as
 * `{"@path": "$.properties.callback"}` under `url` or `headers`): whoever sends the event, a
 * browser with the public write key included, would choose where the request goes or what it
 * carries. Allowed only when the destination opts in with `allow_event_urls: true` and
 * `allowed_hosts`, which the egress gate then enforces at every hop. Part of checkSettings, so
 * `settings check`, `start`, the functions' cold start and `pulumi up` refuse alike.
 */
export function eventUrlRefusals(settings: Readonly<Settings>): FieldViolation[] {
  const out: FieldViolation[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    const allowed = d.allow_event_urls === true && (d.allowed_hosts?.length ?? 0) > 0;
    for (const [j, a] of (d.actions ?? []).entries())
      for (const [key, value] of Object.entries(a.mapping ?? {})) {
        if (!STEERING_KEY.test(key) || !readsEvent(value) || allowed) continue;
        out.push({
          field: `destinations[${i}].actions[${j}].mapping.${key}`,
          description: `is read from the event, so whoever sends an event would choose where the request goes or what it carries; set allow_event_urls: true with allowed_hosts on destination ${d.id}, or write the ${key} in the mapping`,
        });
      }
  });
  return out;
}

/** Whether a mapping value holds a mapping-kit directive (`@path`, `@template`…): a value from the event. */
function readsEvent(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(readsEvent);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => k.startsWith('@') || readsEvent(v));
}

/** Every string of a mapping that is an http(s) URL, with its key path. */
function mappingLiterals(value: unknown, key: string): { key: string; url: string }[] {
  if (typeof value === 'string') return /^https?:\/\//i.test(value) ? [{ key, url: value }] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    mappingLiterals(v, Array.isArray(value) ? `${key}[${k}]` : `${key}.${k}`),
  );
}

/** Whether a URL's host is the metadata server or link-local, loopback, or neither. */
export function addressKind(url: string): 'metadata' | 'loopback' | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
  const bare = host.replace(/^\[|\]$/g, '');
  if (
    host === 'metadata.google.internal' ||
    host === 'metadata' ||
    /^169\.254\./.test(host) ||
    /^fe[89ab][0-9a-f]:/.test(bare) ||
    bare === 'fd00:ec2::254' ||
    /^::ffff:a9fe:/.test(bare)
  )
    return 'metadata';
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\./.test(host) ||
    host === '0.0.0.0' ||
    bare === '::1' ||
    bare === '::' ||
    /^::ffff:7f/.test(bare)
  )
    return 'loopback';
  return undefined;
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
