/**
 * The capturing stand-in of the catalogue destinations (`type: segment_action`, issue #65;
 * docs/local.md): a loopback server that records every request an action makes, per vendor host,
 * and answers it by rules per host and path, so that nobody needs an account to try them.
 *
 * A segment_action destination's `base_url` moves each request under it with the original host as
 * the first path segment (`https://a.klaviyo.com/api/events/` → `<base_url>/a.klaviyo.com/api/events/`):
 * this server reads the host back from that segment. By default it answers 200 with the body the
 * vendor documents where an action reads the answer (Pipedrive's and HubSpot's searches, HubSpot's
 * upsert and its batches of records, Attio's records, Marketo's lead lookups and list changes,
 * Optimizely Web's events), `{}` elsewhere. From outside its process (an end-to-end test on
 * `npm start`), through the paths under `/_standin/` that no vendor host can take:
 * - `POST /_standin/fail-next` `{answers}`: the next answers, whatever the host (server.ts);
 * - `POST /_standin/fail-next/<host>` `{answers, contains?}`: the next answers to that host only
 *   (a 429 with `Retry-After`, a 400 with the vendor's error body), and with `contains` only to
 *   its requests that carry that text, so events sent in parallel do not take each other's;
 * - `GET /_standin/requests[?host=<host>]`: what arrived, oldest first.
 * The OAuth destinations' token endpoints (every URL of oauth-destinations.json, Google's among
 * them, and any other URL a form with an OAuth `grant_type` is posted to) are served by the OAuth stand-in (oauth.ts; `POST /_standin/oauth/clients` registers a
 * client, `GET /_standin/oauth/authorize` is its authorization endpoint), and sheets.googleapis.com
 * by the Google Sheets stand-in (google-sheets.ts; `POST /_standin/sheets/spreadsheets` creates a
 * spreadsheet, `GET /_standin/sheets/spreadsheets/<id>` reads it back).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { oauthDefinitions } from '../../core/platforms/segment-action/oauth.ts';
import { createSheetsStandIn, SPREADSHEETS_PATH } from './google-sheets.ts';
import { AUTHORIZE_PATH, CLIENTS_PATH, createOAuthStandIn, type OAuthStandIn } from './oauth.ts';
import {
  type Answer,
  type PlatformReceiver,
  type ReceivedRequest,
  SCRIPT_PATH,
  startPlatformServer,
} from './server.ts';

/** One request an action made, as the stand-in captured it. */
export interface CapturedRequest {
  readonly method: string;
  /** The vendor's host (the first path segment). */
  readonly host: string;
  /** The path at the vendor, without the host segment. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly raw: string;
  /** The JSON body (undefined when it was not JSON). */
  readonly body: unknown;
  readonly status: number;
  readonly response: unknown;
}

/** A capturing stand-in: a platform receiver that also lists and scripts by host. */
export interface CaptureReceiver extends PlatformReceiver {
  /** Captured requests, oldest first; to one host when given. */
  captured(host?: string): CapturedRequest[];
  /**
   * Scripts the next answers to one host, before its rules run; with `contains`, only to its
   * requests whose path, query or body holds that text (one event's id among several in flight).
   */
  answerNext(host: string, answers: readonly Answer[], contains?: string): void;
}

/** The stand-in's own paths: a host has a dot or is `localhost`, never `_standin`. */
const OWN = '/_standin/';
const REQUESTS_PATH = `${OWN}requests`;

/**
 * A rule: the answer to a request to a host (matched by suffix) and a path (matched by prefix, or
 * by a pattern where the path carries an id); an answer may be built from the request's JSON body
 * (a create that answers the object it created).
 */
interface Rule {
  readonly host: string;
  readonly method?: string;
  readonly path: string | RegExp;
  readonly answer: Answer | ((body: unknown, query: Readonly<Record<string, string>>) => Answer);
}

/** Marketo's answers carry a request id and `success` (HTTP 200 even for an error). */
const marketo = (result: unknown[]): Answer => ({
  status: 200,
  body: { requestId: 'e42b#standin', success: true, result },
});

/** When the HubSpot stand-in's records were written, and its batches run. */
const HUBSPOT_AT = '2026-11-24T12:00:00.000Z';

/** One record of a HubSpot batch's inputs, as its batch endpoints take them. */
interface HubSpotInput {
  readonly id?: unknown;
  readonly idProperty?: unknown;
  readonly properties?: unknown;
}

/**
 * HubSpot's answer to a batch of CRM records (POST `/crm/v3/objects/<type>/batch/<verb>`): the
 * batch `COMPLETE`, one record for each input, in their order, each with HubSpot's own id and its
 * properties as HubSpot keeps them (text), `hs_object_id` among them; an upsert says whether the
 * record is `new`. A read finds a record for each unique value asked (as Marketo's lookup finds a
 * lead), with the properties it asked for: the unique one, whose value is the one asked.
 */
function hubspotBatch(verb: string, body: unknown): Answer {
  const request = (typeof body === 'object' && body !== null ? body : {}) as {
    inputs?: unknown;
    idProperty?: unknown;
  };
  const inputs = (Array.isArray(request.inputs) ? request.inputs : []) as HubSpotInput[];
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const results = inputs.map((input, i) => {
    const id = String(1001 + i);
    const given =
      typeof input.properties === 'object' && input.properties !== null
        ? Object.fromEntries(Object.entries(input.properties).map(([k, v]) => [k, text(v)]))
        : {};
    const unique = verb === 'read' ? request.idProperty : input.idProperty;
    const keyed =
      typeof unique === 'string' && unique !== '' && input.id !== undefined && verb !== 'update'
        ? { [unique]: text(input.id) }
        : {};
    return {
      id,
      properties: { ...given, ...keyed, hs_object_id: id },
      createdAt: HUBSPOT_AT,
      updatedAt: HUBSPOT_AT,
      archived: false,
      ...(verb === 'upsert' ? { new: true } : {}),
    };
  });
  return {
    status: verb === 'create' ? 201 : 200,
    body: { status: 'COMPLETE', results, startedAt: HUBSPOT_AT, completedAt: HUBSPOT_AT },
  };
}

/**
 * The default answers where an action reads what the vendor sent back; each body is the shape
 * the vendor documents (test/fixtures/catalog/SOURCES.md). The first matching rule wins.
 */
const RULES: readonly Rule[] = [
  // Pipedrive's search by field: no match, so createUpdatePerson creates the person.
  {
    host: '.pipedrive.com',
    method: 'GET',
    path: '/api/v1/itemSearch/field',
    answer: { status: 200, body: { success: true, data: [], additional_data: { pagination: {} } } },
  },
  {
    host: '.pipedrive.com',
    method: 'POST',
    path: '/api/v1/',
    answer: { status: 201, body: { success: true, data: { id: 101 } } },
  },
  {
    host: '.pipedrive.com',
    path: '/api/v1/',
    answer: { status: 200, body: { success: true, data: { id: 101 } } },
  },
  // HubSpot's CRM v3: a search finds nothing; an upsert answers the record it wrote.
  {
    host: 'api.hubapi.com',
    method: 'POST',
    path: '/crm/v3/objects/contacts/search',
    answer: { status: 200, body: { total: 0, results: [] } },
  },
  // Its batch endpoints answer each record of the batch (hubspotBatch).
  ...(['upsert', 'read', 'update', 'create'] as const).map(
    (verb): Rule => ({
      host: 'api.hubapi.com',
      method: 'POST',
      path: new RegExp(`^/crm/v3/objects/[^/]+/batch/${verb}$`),
      answer: (body) => hubspotBatch(verb, body),
    }),
  ),
  {
    host: 'api.hubapi.com',
    path: '/crm/v3/objects/',
    answer: {
      status: 200,
      body: {
        id: '512',
        properties: { hs_object_id: '512' },
        createdAt: '2026-11-24T12:00:00.000Z',
        updatedAt: '2026-11-24T12:00:00.000Z',
        archived: false,
      },
    },
  },
  // Attio's assert-record endpoints answer the record.
  {
    host: 'api.attio.com',
    path: '/v2/objects/',
    answer: {
      status: 200,
      body: { data: { id: { workspace_id: 'w-1', object_id: 'o-1', record_id: 'r-1' }, values: {} } },
    },
  },
  // Klaviyo's create endpoints answer 202 Accepted without a body.
  { host: 'a.klaviyo.com', method: 'POST', path: '/api/events', answer: { status: 202 } },
  { host: '.braze.com', path: '/users/', answer: { status: 201, body: { message: 'success' } } },
  { host: '.braze.eu', path: '/users/', answer: { status: 201, body: { message: 'success' } } },
  {
    host: 'api.iterable.com',
    path: '/api/',
    answer: { status: 200, body: { msg: '', code: 'Success', params: null } },
  },
  {
    host: 'api.mixpanel.com',
    path: '/import',
    answer: { status: 200, body: { code: 200, num_records_imported: 1, status: 'OK' } },
  },
  {
    host: 'api2.amplitude.com',
    path: '/2/httpapi',
    answer: {
      status: 200,
      body: { code: 200, events_ingested: 1, payload_size_bytes: 1, server_upload_time: 0 },
    },
  },
  // Slack's incoming webhooks answer the text `ok` (JSON here: the server writes JSON bodies).
  { host: 'hooks.slack.com', path: '/services/', answer: { status: 200, body: 'ok' } },
  // Marketo: a bulk import is queued; a lookup by field finds the lead; a removal from a list
  // answers each lead removed.
  {
    host: '.mktorest.com',
    method: 'POST',
    path: '/bulk/v1/leads.json',
    answer: marketo([{ batchId: 1, importId: '1', status: 'Queued' }]),
  },
  {
    host: '.mktorest.com',
    method: 'GET',
    path: '/rest/v1/leads.json',
    // One lead for each value looked up (`filterValues`, comma-separated), in their order.
    answer: (_, query) =>
      marketo(
        (query['filterValues'] ?? '')
          .split(',')
          .filter((v) => v !== '')
          .map((_v, i) => ({ id: i + 1 })),
      ),
  },
  {
    host: '.mktorest.com',
    method: 'DELETE',
    path: /^\/rest\/v1\/lists\/[^/]+\/leads\.json$/,
    answer: marketo([{ id: 1, status: 'removed' }]),
  },
  // Optimizely Web's REST API: a project with no custom event yet; a create answers the event it
  // created (what was asked, with its id); the Event API answers 204.
  { host: 'api.optimizely.com', method: 'GET', path: '/v2/events', answer: { status: 200, body: [] } },
  {
    host: 'api.optimizely.com',
    method: 'POST',
    path: /^\/v2\/projects\/[^/]+\/custom_events$/,
    answer: (body) => ({
      status: 201,
      body: { ...(typeof body === 'object' && body !== null ? body : {}), id: 1001, archived: false },
    }),
  },
  { host: 'logx.optimizely.com', method: 'POST', path: '/v1/events', answer: { status: 204 } },
];

/** `host/path` of every OAuth destination's token endpoint, and Google's current one: the OAuth stand-in answers them. */
const TOKEN_ENDPOINTS: ReadonlySet<string> = new Set(
  [
    ...Object.values(oauthDefinitions().destinations).flatMap((d) => (d.tokenUrl ? [d.tokenUrl] : [])),
    'https://oauth2.googleapis.com/token',
  ].map((u) => {
    const url = new URL(u);
    return `${url.host}${url.pathname}`;
  }),
);

/**
 * A token request to an endpoint the catalogue data does not name (a destination that builds its
 * token URL at run time: Salesforce's instance, Acoustic's region, Snap, Taboola, HubSpot…): a POST
 * of a form with an OAuth `grant_type` (RFC 6749 §4.1.3, §6). The OAuth stand-in answers it as
 * it answers the named endpoints, so every OAuth destination gets a token locally.
 */
function isTokenRequest(method: string, headers: Readonly<Record<string, string>>, raw: string): boolean {
  if (method !== 'POST' || !/^application\/x-www-form-urlencoded\b/i.test(headers['content-type'] ?? ''))
    return false;
  return /(?:^|&)grant_type=(?:refresh_token|authorization_code)(?:&|$)/.test(raw);
}

const matches = (rule: Rule, method: string, host: string, path: string): boolean =>
  (rule.host.startsWith('.') ? host.endsWith(rule.host) : host === rule.host) &&
  (rule.method === undefined || rule.method === method) &&
  (typeof rule.path === 'string' ? path.startsWith(rule.path) : rule.path.test(path));

/**
 * The answer the vendor documents for a request to `host` and `path` (the query aside), where an
 * action reads it (RULES; test/fixtures/catalog/SOURCES.md names each page); undefined elsewhere.
 */
export function documentedAnswer(
  method: string,
  host: string,
  path: string,
  body?: unknown,
  query: Readonly<Record<string, string>> = {},
): Answer | undefined {
  const bare = path.split('?')[0] ?? path;
  const rule = RULES.find((r) => matches(r, method.toUpperCase(), host.toLowerCase(), bare));
  if (rule === undefined) return undefined;
  return typeof rule.answer === 'function' ? rule.answer(body, query) : rule.answer;
}

/** `/a.klaviyo.com/api/events/` → host and path; undefined when the first segment is no host. */
export function splitCapturedPath(path: string): { host: string; path: string } | undefined {
  const m = /^\/([a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost)(?::\d+)?(\/.*)?$/i.exec(path);
  if (!m) return undefined;
  return { host: (m[1] as string).toLowerCase(), path: m[2] ?? '/' };
}

/** The captured form of a request the receiver recorded; undefined for the stand-in's own paths. */
function capturedOf(r: ReceivedRequest): CapturedRequest | undefined {
  const at = splitCapturedPath(r.path);
  if (!at) return undefined;
  return {
    method: r.method,
    host: at.host,
    path: at.path,
    query: r.query,
    headers: r.headers,
    raw: r.raw,
    body: r.body,
    status: r.status,
    response: r.response,
  };
}

/** Answers checked like server.ts checks the global script: a status, a body, headers. */
function answersOf(body: unknown): Answer[] | undefined {
  const answers = (body as { answers?: unknown } | undefined)?.answers;
  if (!Array.isArray(answers) || answers.length === 0 || answers.length > 1000) return undefined;
  const out: Answer[] = [];
  for (const a of answers as Answer[]) {
    if (
      typeof a !== 'object' ||
      a === null ||
      !Number.isInteger(a.status) ||
      a.status < 100 ||
      a.status > 599
    )
      return undefined;
    out.push({ status: a.status, body: a.body, ...(a.headers ? { headers: a.headers } : {}) });
  }
  return out;
}

/** Where the capturing stand-in keeps what must outlive it. */
export interface CaptureOptions {
  /**
   * A file holding the OAuth stand-in's client registrations, one JSON line each: read at start,
   * each new registration appended, so `eventbus connect --stand-in` survives a restart.
   */
  readonly oauthClients?: string;
}

/** The OAuth stand-in's `register`, kept in `file` when one is given: what it holds registered first. */
function keptRegistrations(
  oauth: OAuthStandIn,
  file: string | undefined,
): (raw: unknown) => string | undefined {
  if (file === undefined) return (raw) => oauth.register(raw);
  if (existsSync(file))
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        oauth.register(JSON.parse(line));
      } catch {
        // A line cut short by a crash: the registrations before and after it still count.
      }
    }
  return (raw) => {
    const problem = oauth.register(raw);
    if (problem === undefined) appendFileSync(file, `${JSON.stringify(raw)}\n`, { mode: 0o600 });
    return problem;
  };
}

/** Starts the capturing stand-in on 127.0.0.1 (any non-empty credential is taken). */
export async function startCaptureReceiver(options: CaptureOptions = {}): Promise<CaptureReceiver> {
  const next = new Map<string, { answer: Answer; contains: string | undefined }[]>();
  const answerNext = (host: string, answers: readonly Answer[], contains?: string) => {
    const key = host.toLowerCase();
    next.set(key, [...(next.get(key) ?? []), ...answers.map((answer) => ({ answer, contains }))]);
  };
  let captured: (host?: string) => CapturedRequest[] = () => [];
  const oauth = createOAuthStandIn();
  const register = keptRegistrations(oauth, options.oauthClients);
  const sheets = createSheetsStandIn(oauth);
  const server = await startPlatformServer(({ method, path, query, headers, body, raw }) => {
    if (path.startsWith(OWN)) {
      if (method === 'GET' && path === REQUESTS_PATH)
        return { status: 200, body: { requests: captured(query['host']) } };
      const own = standInAdmin(method, path, query, body);
      if (own) return own;
      const host = path.startsWith(`${SCRIPT_PATH}/`) ? path.slice(SCRIPT_PATH.length + 1) : '';
      const answers = method === 'POST' && host !== '' ? answersOf(body) : undefined;
      if (!answers)
        return {
          status: 400,
          body: {
            error: `expected POST ${SCRIPT_PATH}/<host> {answers: [{status, body?, headers?}], contains?}`,
          },
        };
      const contains = (body as { contains?: unknown }).contains;
      answerNext(host, answers, typeof contains === 'string' && contains !== '' ? contains : undefined);
      return { status: 204 };
    }
    const at = splitCapturedPath(path);
    if (!at)
      return {
        status: 404,
        problems: [`no vendor host as the first path segment of ${path}`],
        body: { error: `expected /<vendor host>/<path>, got ${path}` },
      };
    const queued = next.get(at.host) ?? [];
    const text = `${path} ${Object.values(query).join(' ')} ${raw}`;
    const i = queued.findIndex((q) => q.contains === undefined || text.includes(q.contains));
    const scripted = i < 0 ? undefined : queued.splice(i, 1)[0];
    if (scripted) return scripted.answer;
    if (TOKEN_ENDPOINTS.has(`${at.host}${at.path}`) || isTokenRequest(method, headers, raw))
      return oauth.token({ method, headers, raw });
    if (at.host === 'sheets.googleapis.com')
      return sheets.handle({ method, path: at.path, query, headers, body });
    return documentedAnswer(method, at.host, at.path, body, query) ?? { status: 200, body: {} };
  });
  /** The OAuth and Sheets stand-ins' own paths: registration, authorization, spreadsheets. */
  function standInAdmin(
    method: string,
    path: string,
    query: Readonly<Record<string, string>>,
    body: unknown,
  ): Answer | undefined {
    const refusedOrDone = (problem: string | undefined): Answer =>
      problem ? { status: 400, body: { error: problem } } : { status: 204 };
    if (method === 'POST' && path === CLIENTS_PATH) return refusedOrDone(register(body));
    if (method === 'GET' && path === AUTHORIZE_PATH) return oauth.authorize(query);
    if (method === 'POST' && path === SPREADSHEETS_PATH) return refusedOrDone(sheets.create(body));
    if (method === 'GET' && path.startsWith(`${SPREADSHEETS_PATH}/`)) {
      const dump = sheets.dump(decodeURIComponent(path.slice(SPREADSHEETS_PATH.length + 1)));
      return dump
        ? { status: 200, body: { sheets: dump } }
        : { status: 404, body: { error: 'no such spreadsheet' } };
    }
    return undefined;
  }
  captured = (host) =>
    server.received.flatMap((r) => {
      const c = capturedOf(r);
      return c && (host === undefined || c.host === host.toLowerCase()) ? [c] : [];
    });
  return { ...server, captured: (host) => captured(host), answerNext };
}
