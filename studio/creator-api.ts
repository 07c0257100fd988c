/**
 * What the creator's page asks of the studio beyond the registry (docs/studio.md):
 * - `preview`: the exact request each destination of the environment would receive for one
 *   event of a draft definition (its mappings in effect), through the same code as
 *   `eventbus preview` (core/delivery/preview.ts); secrets redacted.
 * - `tokens`: a `translate:<name>` token for a translator the registry holds, in the gateway's
 *   token store, its secret answered once. It expires: after `expires` (`30d`, `12h`, a date),
 *   else the settings' `tokens.default_expiry_days`, else INTERACTIVE_TOKEN_DAYS (90); a token
 *   that never expires only when asked with `"expires": "never"`.
 * - `send`: the sample posted to the gateway's translator endpoint with such a token, exactly
 *   as a producer would (the page cannot: the gateway is another origin).
 * - `arrivals`: what the warehouse holds since a moment for an event (`event`), or for each event
 *   of an endpoint of several types (`events`, at most MAX_EVENTS): the typed views' rows (each
 *   with its `event_name`) and the delivery ledger per event, destination and status.
 * - `limits`: the gateway's accepted event_time window (the settings' `limits`), so the page's
 *   check of the sample rows is the endpoint's, window included.
 * - `signed-send`: the sample signed with the chosen scheme and secret and posted as the vendor
 *   would (studio/creator-signing.ts).
 */
import { randomBytes } from 'node:crypto';
import type { RegistryClient } from '../adapters/registry.ts';
import { plainValue } from '../adapters/user-sql.ts';
import type { SchemaDataset } from '../core/console/schema.ts';
import {
  type DefinitionSpec,
  definedEvent,
  withDefinitionMappings,
} from '../core/definitions/defined-events.ts';
import { previewDelivery } from '../core/delivery/preview.ts';
import { applyViolations } from '../core/registry/resources.ts';
import { fail, ok, type Step } from '../core/step.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';
import { INTERACTIVE_TOKEN_DAYS, issueToken, parseExpiry } from '../gateway/credentials.ts';
import type { TokenStore } from '../gateway/token-store.ts';
import { eventNameProblem } from '../schemas/catalogue.ts';
import type { Settings } from '../schemas/settings.ts';
import {
  bodyContentType,
  postToGateway,
  SAMPLE_MAX,
  sampleHeaders,
  signedSend,
  bodyText as text,
  translatorUrl,
} from './creator-signing.ts';
import { checkedName, invalidField, notConfigured } from './request.ts';

export type Row = Record<string, unknown>;

export interface CreatorApiOptions {
  /** The environment's settings: their destinations are what `preview` shows. */
  readonly settings?: Readonly<Settings>;
  /** The gateway's token store (where `eventbus token create` writes). */
  readonly tokens?: TokenStore;
  /** The gateway's URL, which `send` posts to. */
  readonly gatewayUrl?: string;
  /** The registry: a token is made only for a translator it holds. */
  readonly registry?: Pick<RegistryClient, 'readIndex'>;
  /** Read-only SQL on the events dataset; `table` quotes a table's full reference. */
  readonly warehouse?: {
    table(name: string): string;
    query(sql: string, params: Record<string, unknown>): Promise<Row[]>;
    /**
     * SQL someone wrote, run only if a dry run says it is a single SELECT, under the settings'
     * bytes cap, unqualified tables in the events dataset (adapters/user-sql.ts): plain rows.
     */
    select?(sql: string, maxRows: number): Promise<Row[]>;
    /** The datasets' tables, views and columns for the SQL page (adapters/warehouse-schema.ts). */
    schema?(): Promise<SchemaDataset[]>;
  };
}

/** The creator's actions, and whether each only reads. */
export const CREATOR_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  preview: 'read',
  tokens: 'apply',
  send: 'apply',
  arrivals: 'read',
  limits: 'read',
  'signed-send': 'apply',
});

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function eventName(body: Record<string, unknown>, field: string): Step<string> {
  const name = text(body, field, 64);
  const problem = name.ok ? eventNameProblem(name.value) : undefined;
  return problem ? invalidField(field, problem) : name;
}

/** What an action needs of the options, or NOT_CONFIGURED naming it. */
const needs = <T>(v: T | undefined, what: string): Step<T> =>
  v === undefined ? notConfigured(`it has no ${what}`) : ok(v);

export async function creatorAction(
  o: CreatorApiOptions,
  action: string,
  raw: unknown,
  author: string,
  now: Date = new Date(),
): Promise<Step<unknown>> {
  const body = record(raw);
  switch (action) {
    case 'preview': {
      const settings = needs(o.settings, 'settings');
      return settings.ok ? preview(settings.value, body, now) : settings;
    }
    case 'tokens': {
      const store = needs(o.tokens, 'token store');
      return store.ok ? token(store.value, o, body, author, now) : store;
    }
    case 'send': {
      const url = needs(o.gatewayUrl, 'gateway URL');
      return url.ok ? sendSample(url.value, body) : url;
    }
    case 'arrivals': {
      const w = needs(o.warehouse, 'warehouse');
      return w.ok ? arrivals(w.value, body) : w;
    }
    case 'limits':
      return ok({ limits: o.settings?.limits ?? {} });
    case 'signed-send': {
      const url = needs(o.gatewayUrl, 'gateway URL');
      return url.ok ? signedSend(url.value, body, now) : url;
    }
    default:
      return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
  }
}

/** Each destination's request for one event of a draft definition (not saved). */
function preview(settings: Readonly<Settings>, body: Record<string, unknown>, now: Date): Step<unknown> {
  const definition = record(body['definition']);
  const named = eventName(definition, 'name');
  if (!named.ok) return named;
  const name = named.value;
  const problems = applyViolations([{ kind: 'EventDefinition', name, spec: definition['spec'] }], {
    connections: settings.connections ?? [],
  });
  if (problems.length > 0)
    return fail('INVALID_RESOURCE', { detail: `${problems.length} problem(s).` }, problems);
  const defined = definedEvent(name, '0.0', definition['spec'] as DefinitionSpec);
  const mapped = {
    ...settings,
    destinations: (settings.destinations ?? []).map((d) => withDefinitionMappings(d, defined)),
  };
  return ok({
    destinations: mapped.destinations.map((d) => ({
      id: d.id,
      type: d.type,
      result: previewDelivery(mapped, d.id, body['event'], now, { definition: defined }),
    })),
  });
}

/** A `translate:<name>` token for an existing translator; the secret is in this answer only. */
async function token(
  store: TokenStore,
  o: CreatorApiOptions,
  body: Record<string, unknown>,
  author: string,
  now: Date,
): Promise<Step<unknown>> {
  const checked = checkedName('Translator', body['translator'], 'translator');
  if (!checked.ok) return checked;
  const translator = checked.value;
  const registry = needs(o.registry, 'registry');
  if (!registry.ok) return registry;
  const { resources } = (await registry.value.readIndex('Translator')).index;
  const entry = Object.hasOwn(resources, translator) ? resources[translator] : undefined;
  if (!entry || entry.deleted)
    return invalidField('translator', `names no Translator: apply Translator/${translator} first`);
  const expires = body['expires'] ?? `${o.settings?.tokens?.default_expiry_days ?? INTERACTIVE_TOKEN_DAYS}d`;
  if (typeof expires !== 'string')
    return invalidField('expires', 'must be a string: 30d, 12h, a date, or never');
  const expiry = parseExpiry(expires, now);
  if (!expiry.ok) return invalidField('expires', expiry.problem);
  return store
    .update((set) => {
      const r = issueToken(
        set,
        {
          scopes: [`translate:${translator}`],
          description: `made in the studio's creator by ${author}`,
          ...(expiry.at ? { expiresAt: expiry.at } : {}),
        },
        randomBytes,
        now,
      );
      return { set: r.set, result: r };
    })
    .then(
      (issued) =>
        ok({
          id: issued.record.id,
          secret: issued.secret,
          scopes: issued.record.scopes,
          expires_at: issued.record.expires_at ?? 'never',
        }),
      (err: unknown) => invalidField('translator', (err as Error).message),
    );
}

/** The sample through the gateway's endpoint, with the producer's token; the gateway's answer. */
async function sendSample(gatewayUrl: string, body: Record<string, unknown>): Promise<Step<unknown>> {
  const translator = checkedName('Translator', body['translator'], 'translator');
  if (!translator.ok) return translator;
  const secret = text(body, 'token', 256);
  if (!secret.ok) return secret;
  const contentType = bodyContentType(body);
  if (!contentType.ok) return contentType;
  const sample = text(body, 'text', SAMPLE_MAX);
  if (!sample.ok) return sample;
  const own = sampleHeaders(body);
  if (!own.ok) return own;
  const url = `${translatorUrl(gatewayUrl, translator.value)}?partial=true`;
  return postToGateway(
    url,
    { ...own.value, authorization: `Bearer ${secret.value}`, 'content-type': contentType.value },
    sample.value,
  );
}

/** The most events one `arrivals` call looks at (an endpoint of several types names each). */
export const MAX_EVENTS = 20;

/** `event`, or `events` (a non-empty list of distinct event names): the names to look at. */
function eventNames(body: Record<string, unknown>): Step<string[]> {
  if (body['events'] === undefined) {
    const one = eventName(body, 'event');
    return one.ok ? ok([one.value]) : one;
  }
  const list = body['events'];
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_EVENTS)
    return invalidField('events', `must be a list of 1 to ${MAX_EVENTS} event names`);
  const names: string[] = [];
  for (const [i, item] of list.entries()) {
    const name = eventName({ [`events[${i}]`]: item }, `events[${i}]`);
    if (!name.ok) return name;
    if (names.includes(name.value)) return invalidField(`events[${i}]`, `names ${name.value} twice`);
    names.push(name.value);
  }
  return ok(names);
}

/** The events' typed-view rows and the ledger's counts since `since`. */
async function arrivals(
  w: NonNullable<CreatorApiOptions['warehouse']>,
  body: Record<string, unknown>,
): Promise<Step<unknown>> {
  const events = eventNames(body);
  if (!events.ok) return events;
  const checked = text(body, 'since', 40);
  if (!checked.ok) return checked;
  const since = checked.value;
  if (Number.isNaN(Date.parse(since))) return invalidField('since', 'must be an RFC 3339 timestamp');
  const names = events.value;
  const several = body['events'] !== undefined;
  // Each event's own typed view (their columns differ) and ledger rows: the one-event queries, per event.
  const looks = await Promise.all(
    names.map((name) =>
      Promise.all([
        w.query(
          `SELECT * FROM ${w.table(name)} WHERE received_at >= TIMESTAMP(@since) ORDER BY received_at, event_id LIMIT 50`,
          { name, since },
        ),
        w.query(
          `SELECT destination, status, COUNT(*) AS events, MAX(reason) AS reason FROM ${w.table(TABLES.deliveries)} WHERE event_name = @name AND recorded_at >= TIMESTAMP(@since) GROUP BY destination, status ORDER BY destination, status`,
          { name, since },
        ),
      ]),
    ),
  );
  // With several events, each row says whose it is.
  const tagged = (rows: Row[], i: number) =>
    rows.map((row) => (several ? { event_name: names[i], ...(plainValue(row) as Row) } : plainValue(row)));
  return ok({
    stored: looks.flatMap(([stored], i) => tagged(stored, i)),
    deliveries: looks.flatMap(([, deliveries], i) => tagged(deliveries, i)),
  });
}
