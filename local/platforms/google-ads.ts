/**
 * A loopback Data Manager API for Google Ads (`POST /v1/events:ingest`, and Customer Match's
 * `/v1/audienceMembers:ingest` and `:remove`, keeping each list's members; `Authorization: Bearer`)
 * with its own OAuth token endpoint (`POST /token`, the refresh-token grant an authorized user's
 * credentials file names as `token_uri`), checking requests against Google's published rules
 * (docs/platforms.md §6) and answering as Google does: `{requestId}`, or Google's error
 * envelope `{"error": {code, message, status, details}}` refusing the whole request. Written out
 * again on purpose, not imported from core/platforms/google-ads/target.ts: the stand-in checks the
 * driver, so it must not share the driver's mistakes. `expireTokens()` makes every token issued
 * so far answer 401, as an expired one does. `GET /v1/requestStatus:retrieve?requestId=` answers
 * `SUCCESS` for each destination of a request it accepted (it processes them at once), except
 * for conversions whose click is outside every conversion window: accepted, then reported there.
 * The Google Ads API's `googleAds:searchStream` on the upload summaries reports what the uploads
 * kept, per conversion action and day (google-ads-reporting.ts).
 * `GET /stand-in/lists/{id}` (not a Google route) shows a list's members to a test in another
 * process (`npm start`'s receiver).
 */
import { randomUUID } from 'node:crypto';
import {
  REPORTING_PATH,
  searchUploadSummaries,
  tallyUploads,
  type UploadTally,
} from './google-ads-reporting.ts';
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  startPlatformServer,
} from './server.ts';

export interface GoogleAdsReceiver extends PlatformReceiver {
  /** The identifiers (as JSON) of a Customer Match list's members, as ingest and remove left them. */
  members(userListId: string): string[];
  /** Every access token issued so far is refused from now on (401 UNAUTHENTICATED). */
  expireTokens(): void;
  /** How many access tokens the token endpoint issued. */
  readonly tokensIssued: () => number;
}

const HEX64 = /^[a-f0-9]{64}$/;
const BASE64_32 = /^[A-Za-z0-9+/]{43}=$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const CONSENT = ['CONSENT_GRANTED', 'CONSENT_DENIED', 'CONSENT_STATUS_UNSPECIFIED'];
const SOURCES = ['WEB', 'APP', 'IN_STORE', 'PHONE', 'OTHER'];
/** Event fields Data Manager knows (event.proto); any other is an unknown name. */
const EVENT_FIELDS = new Set([
  'destinationReferences',
  'transactionId',
  'eventTimestamp',
  'lastUpdatedTimestamp',
  'userData',
  'consent',
  'adIdentifiers',
  'currency',
  'conversionValue',
  'eventSource',
  'eventDeviceInfo',
  'cartData',
  'customVariables',
  'experimentalFields',
  'userProperties',
  'eventName',
  'clientId',
  'userId',
  'additionalEventParameters',
  'eventLocation',
  'thirdPartyUserData',
  'conversionCount',
  'appInstanceId',
]);

/** Google's error envelope; each violation is `field: description` (a BadRequest detail). */
export function googleError(
  code: number,
  status: string,
  message: string,
  violations: readonly string[] = [],
): Answer {
  const details =
    violations.length === 0
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: violations.map((v) => {
              const [field, ...rest] = v.split(': ');
              return { field, description: rest.join(': ') };
            }),
          },
        ];
  return {
    status: code,
    problems: violations.length > 0 ? violations : [message],
    body: { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } },
  };
}

function checkAccount(v: unknown, at: string, problems: string[]): void {
  if (!isObject(v)) {
    problems.push(`${at}: is required`);
    return;
  }
  const kind = v['accountType'] ?? v['product'];
  if (kind !== 'GOOGLE_ADS') problems.push(`${at}.accountType: must be GOOGLE_ADS for a Google Ads account`);
  if (typeof v['accountId'] !== 'string' || !/^\d{10}$/.test(v['accountId']))
    problems.push(`${at}.accountId: must be the 10 digits of a Google Ads account, without hyphens`);
}

function checkHash(v: unknown, encoding: unknown, at: string, problems: string[]): void {
  const ok = typeof v === 'string' && (encoding === 'BASE64' ? BASE64_32.test(v) : HEX64.test(v));
  if (!ok)
    problems.push(`${at}: must be a SHA-256 hash encoded as ${encoding === 'BASE64' ? 'BASE64' : 'HEX'}`);
}

function checkEvent(
  e: unknown,
  at: string,
  refs: ReadonlySet<string>,
  encoding: unknown,
  problems: string[],
): void {
  if (!isObject(e)) {
    problems.push(`${at}: must be an object`);
    return;
  }
  for (const k of Object.keys(e))
    if (!EVENT_FIELDS.has(k))
      problems.push(`${at}: Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
  if (typeof e['transactionId'] !== 'string' || e['transactionId'] === '')
    problems.push(`${at}.transactionId: is required`);
  if (typeof e['eventTimestamp'] !== 'string' || !TIMESTAMP.test(e['eventTimestamp']))
    problems.push(`${at}.eventTimestamp: is required, as an RFC 3339 timestamp`);
  if (e['currency'] !== undefined && (typeof e['currency'] !== 'string' || !/^[A-Z]{3}$/.test(e['currency'])))
    problems.push(`${at}.currency: must be an ISO 4217 code`);
  if (e['conversionValue'] !== undefined && typeof e['conversionValue'] !== 'number')
    problems.push(`${at}.conversionValue: must be a number`);
  if (e['eventSource'] !== undefined && !SOURCES.includes(e['eventSource'] as string))
    problems.push(`${at}.eventSource: Invalid value`);
  const consent = e['consent'];
  if (consent !== undefined)
    for (const k of ['adUserData', 'adPersonalization'])
      if (isObject(consent) && consent[k] !== undefined && !CONSENT.includes(consent[k] as string))
        problems.push(`${at}.consent.${k}: Invalid value`);
  const references = e['destinationReferences'];
  if (references !== undefined)
    for (const r of Array.isArray(references) ? references : [references])
      if (!refs.has(r as string))
        problems.push(`${at}.destinationReferences: ${String(r)} names no destination of the request`);
  if (e['userData'] !== undefined) checkUserData(e['userData'], `${at}.userData`, encoding, problems);
}

/** A `UserData`: 1 to 10 identifiers, each exactly one of email, phone, a whole address, hashed as the encoding says. */
function checkUserData(user: unknown, at: string, encoding: unknown, problems: string[]): void {
  const ids = isObject(user) ? user['userIdentifiers'] : undefined;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 10) {
    problems.push(`${at}.userIdentifiers: must hold 1 to 10 identifiers`);
    return;
  }
  if (encoding === undefined) problems.push('encoding: is required when user data is sent');
  ids.forEach((id, i) => {
    const where = `${at}.userIdentifiers[${i}]`;
    const keys = isObject(id) ? Object.keys(id) : [];
    if (!isObject(id) || keys.length !== 1) {
      problems.push(`${where}: must hold exactly one of emailAddress, phoneNumber, address`);
      return;
    }
    if (id['emailAddress'] !== undefined)
      checkHash(id['emailAddress'], encoding, `${where}.emailAddress`, problems);
    else if (id['phoneNumber'] !== undefined)
      checkHash(id['phoneNumber'], encoding, `${where}.phoneNumber`, problems);
    else if (isObject(id['address'])) {
      const a = id['address'];
      checkHash(a['givenName'], encoding, `${where}.address.givenName`, problems);
      checkHash(a['familyName'], encoding, `${where}.address.familyName`, problems);
      if (typeof a['regionCode'] !== 'string' || !/^[A-Z]{2}$/.test(a['regionCode']))
        problems.push(`${where}.address.regionCode: is required, ISO 3166-1 alpha-2`);
      if (typeof a['postalCode'] !== 'string' || a['postalCode'] === '')
        problems.push(`${where}.address.postalCode: is required`);
    } else problems.push(`${where}: ${keys[0]} is not a user identifier`);
  });
}

/** `encoding`: HEX or BASE64 when given; returned for the hash checks. */
function checkEncoding(encoding: unknown, problems: string[]): unknown {
  if (encoding !== undefined && encoding !== 'HEX' && encoding !== 'BASE64')
    problems.push('encoding: Invalid value');
  return encoding;
}

/** Google's answer: the whole request refused when anything is wrong, else a requestId (validateOnly: `{}`, only errors come back). */
function verdict(problems: readonly string[], validateOnly: boolean): Answer {
  const unique = [...new Set(problems)];
  if (unique.length > 0)
    return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', unique.slice(0, 20));
  return { status: 200, body: validateOnly ? {} : { requestId: randomUUID() } };
}

/** `destinations[]`: 1 to 10, Google Ads accounts, the numeric id of a conversion action or user list. */
function checkDestinations(destinations: unknown, object: string, problems: string[]): Set<string> {
  const refs = new Set<string>();
  if (!Array.isArray(destinations) || destinations.length === 0 || destinations.length > 10) {
    problems.push('destinations: must hold 1 to 10 destinations');
    return refs;
  }
  destinations.forEach((d, i) => {
    const at = `destinations[${i}]`;
    if (!isObject(d)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    checkAccount(d['operatingAccount'], `${at}.operatingAccount`, problems);
    if (d['loginAccount'] !== undefined) checkAccount(d['loginAccount'], `${at}.loginAccount`, problems);
    if (typeof d['productDestinationId'] !== 'string' || !/^\d+$/.test(d['productDestinationId']))
      problems.push(`${at}.productDestinationId: must be the id of a ${object}`);
    if (typeof d['reference'] === 'string') refs.add(d['reference']);
  });
  return refs;
}

const TERMS = ['TERMS_OF_SERVICE_STATUS_UNSPECIFIED', 'ACCEPTED', 'REJECTED'];

/**
 * `termsOfService`: Google's reference says the Customer Match terms must be accepted when
 * members are added by `userData` (`ACCEPTED`); a removal needs none, and any value it carries
 * must still be one of the enum's.
 */
function checkTerms(verb: 'ingest' | 'remove', terms: unknown, problems: string[]): void {
  const status = isObject(terms) ? terms['customerMatchTermsOfServiceStatus'] : undefined;
  if (
    terms !== undefined &&
    (!isObject(terms) || (status !== undefined && !TERMS.includes(status as string)))
  )
    problems.push('termsOfService.customerMatchTermsOfServiceStatus: Invalid value');
  else if (verb === 'ingest' && status !== 'ACCEPTED')
    problems.push(
      'termsOfService.customerMatchTermsOfServiceStatus: the Customer Match terms of service must be ACCEPTED to ingest userData',
    );
}

/** Customer Match lists as the stand-in keeps them: list id → the identifiers of its members. */
type Lists = Map<string, Set<string>>;

/**
 * `audienceMembers:ingest` / `:remove`: destinations (the user lists), 1 to 10,000 members each
 * holding `userData` checked as an event's is; the lists' members change only when all is valid.
 */
function audienceMembers(verb: 'ingest' | 'remove', body: unknown, lists: Lists): Answer {
  if (!isObject(body)) return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const problems: string[] = [];
  checkDestinations(body['destinations'], 'user list', problems);
  const encoding = checkEncoding(body['encoding'], problems);
  const members = body['audienceMembers'];
  if (!Array.isArray(members) || members.length === 0 || members.length > 10_000)
    problems.push('audienceMembers: must hold 1 to 10000 members');
  else
    members.forEach((m, i) => {
      const at = `audienceMembers[${i}]`;
      if (!isObject(m) || m['userData'] === undefined) {
        problems.push(`${at}: must hold userData`);
        return;
      }
      checkUserData(m['userData'], `${at}.userData`, encoding, problems);
      const consent = m['consent'];
      for (const k of ['adUserData', 'adPersonalization'])
        if (isObject(consent) && consent[k] !== undefined && !CONSENT.includes(consent[k] as string))
          problems.push(`${at}.consent.${k}: Invalid value`);
    });
  checkTerms(verb, body['termsOfService'], problems);
  if (problems.length > 0 || body['validateOnly'] === true)
    return verdict(problems, body['validateOnly'] === true);
  for (const d of body['destinations'] as Record<string, unknown>[]) {
    const list = lists.get(d['productDestinationId'] as string) ?? new Set<string>();
    lists.set(d['productDestinationId'] as string, list);
    for (const m of members as { userData: { userIdentifiers: unknown[] } }[])
      for (const id of m.userData.userIdentifiers)
        if (verb === 'ingest') list.add(JSON.stringify(id));
        else list.delete(JSON.stringify(id));
  }
  return verdict([], false);
}

/** A request the stand-in accepted: the destinations it named, its rows, and those it found too old later. */
interface Accepted {
  readonly destinations: unknown[];
  readonly rows: number;
  readonly expired: number;
}

/**
 * The longest click-through conversion window Google Ads offers: 90 days ("Conversion window",
 * support.google.com/google-ads/answer/3123169). A click older than that is outside every
 * conversion action's window: the Google Ads API answers EXPIRED_EVENT ("its click occurred before
 * this conversion's click-through window", ConversionUploadError), and Data Manager accepts the
 * upload and reports it afterwards in the request's diagnostics, under its own reason
 * `PROCESSING_ERROR_REASON_EVENT_TOO_OLD` (ProcessingErrorReason: "the conversion is older than max
 * supported age"; Data Manager has no EXPIRED_EVENT). The click time is not on the wire, so the
 * stand-in reads it as no later than the conversion's `eventTimestamp`.
 */
const CLICK_WINDOW_MS = 90 * 86_400_000;

/** Whether an `events:ingest` event came from a click older than every window. */
function clickTooOld(e: unknown, now: Date): boolean {
  if (!isObject(e) || !isObject(e['adIdentifiers'])) return false;
  const ids = e['adIdentifiers'];
  if (!['gclid', 'gbraid', 'wbraid'].some((k) => typeof ids[k] === 'string')) return false;
  const at = Date.parse(String(e['eventTimestamp']));
  return Number.isFinite(at) && at < now.getTime() - CLICK_WINDOW_MS;
}

/** How many of the accepted `events:ingest` events came from a click older than every window. */
function expiredClicks(body: unknown, now: Date): number {
  const events = isObject(body) && Array.isArray(body['events']) ? body['events'] : [];
  return events.filter((e) => clickTooOld(e, now)).length;
}

/**
 * `requestStatus:retrieve`: a request the stand-in accepted was processed at once, so each of its
 * destinations is `SUCCESS` — or, when some of its conversions came from a click outside every
 * conversion window, `PARTIAL_SUCCESS` (`FAILED` when all did) with their count under
 * `errorInfo.errorCounts`. An id it never issued is not found (Google's exact answer to an
 * unknown id is not documented in the briefing).
 */
function requestStatus(requestId: string | undefined, accepted: ReadonlyMap<string, Accepted>): Answer {
  if (!requestId)
    return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
      'request_id: is required',
    ]);
  const request = accepted.get(requestId);
  if (!request) return googleError(404, 'NOT_FOUND', `No request with id ${requestId}.`);
  const { expired, rows } = request;
  const failure =
    expired === 0
      ? {}
      : {
          errorInfo: {
            // int64 travels as a string in Google's JSON.
            errorCounts: [{ recordCount: String(expired), reason: 'PROCESSING_ERROR_REASON_EVENT_TOO_OLD' }],
          },
        };
  const status = expired === 0 ? 'SUCCESS' : expired === rows ? 'FAILED' : 'PARTIAL_SUCCESS';
  return {
    status: 200,
    body: {
      requestStatusPerDestination: request.destinations.map((destination) => ({
        destination,
        requestStatus: status,
        ...failure,
      })),
    },
  };
}

/** `events:ingest`: the destinations (1 to 10) and each event (1 to 2,000); one problem refuses all. */
function ingestEvents(body: unknown): Answer {
  if (!isObject(body)) return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const problems: string[] = [];
  const refs = checkDestinations(body['destinations'], 'conversion action', problems);
  const encoding = checkEncoding(body['encoding'], problems);
  const events = body['events'];
  if (!Array.isArray(events) || events.length === 0 || events.length > 2000)
    problems.push('events: must hold 1 to 2000 events');
  else
    events.forEach((e, i) => {
      checkEvent(e, `events[${i}]`, refs, encoding, problems);
    });
  return verdict(problems, body['validateOnly'] === true);
}

/**
 * An authorized user's credentials file whose tokens the stand-in at `url` issues: what the
 * `credentials` secret of a destination pointed at the stand-in holds.
 */
export function standInCredentials(url: string): string {
  return JSON.stringify({
    type: 'authorized_user',
    client_id: 'local-client',
    client_secret: 'local-secret',
    refresh_token: 'local-refresh-token',
    token_uri: `${url.replace(/\/+$/, '')}/token`,
  });
}

/** Starts the Google Ads receiver. */
export async function startGoogleAdsReceiver(options: ReceiverOptions = {}): Promise<GoogleAdsReceiver> {
  const live = new Set<string>();
  const lists: Lists = new Map();
  let issued = 0;
  const now = options.now ?? (() => new Date());
  // The requests accepted so far by id: what requestStatus:retrieve reports of them.
  const accepted = new Map<string, Accepted>();
  // Conversions kept per conversion action and upload day: what the reporting read counts.
  const uploads: UploadTally = new Map();
  const remember = (answer: Answer, body: unknown): Answer => {
    const id = (answer.body as { requestId?: unknown } | undefined)?.requestId;
    if (answer.status === 200 && typeof id === 'string' && isObject(body)) {
      const rows = ['events', 'audienceMembers'].map((k) => body[k]).find(Array.isArray)?.length ?? 0;
      const at = now();
      accepted.set(id, {
        destinations: body['destinations'] as unknown[],
        rows,
        expired: expiredClicks(body, at),
      });
      tallyUploads(uploads, body, at.toISOString().slice(0, 10), (e) => clickTooOld(e, at));
    }
    return answer;
  };
  const server = await startPlatformServer(({ method, path, query, headers, raw, body }) => {
    if (method === 'POST' && path === '/token') {
      const form = new URLSearchParams(raw);
      if (form.get('grant_type') !== 'refresh_token' || !form.get('refresh_token') || !form.get('client_id'))
        return {
          status: 400,
          problems: ['token request without a refresh_token grant'],
          body: {
            error: 'invalid_request',
            error_description: 'refresh_token grant with client_id expected',
          },
        };
      const token = `ya29.local-${++issued}-${randomUUID()}`;
      live.add(token);
      return {
        status: 200,
        body: { access_token: token, expires_in: 3599, token_type: 'Bearer', scope: form.get('scope') ?? '' },
      };
    }
    // Not Google's: what a list holds, for tests that see the stand-in from another process.
    const list = /^\/stand-in\/lists\/(\d+)$/.exec(path)?.[1];
    if (method === 'GET' && list !== undefined)
      return { status: 200, body: { userListId: list, members: [...(lists.get(list) ?? [])].sort() } };
    const route = /^\/v1\/(events:ingest|audienceMembers:ingest|audienceMembers:remove)$/.exec(path)?.[1];
    const status = method === 'GET' && path === '/v1/requestStatus:retrieve';
    const reporting = method === 'POST' ? REPORTING_PATH.exec(path) : null;
    if (!status && !reporting && (method !== 'POST' || route === undefined))
      return googleError(404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
    const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
    const authorized =
      token !== undefined &&
      (options.accessToken !== undefined ? token === options.accessToken : live.has(token));
    if (!authorized)
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    if (status) return requestStatus(query['requestId'], accepted);
    if (reporting)
      return searchUploadSummaries(
        reporting[1] as string,
        reporting[2] as string,
        reporting[3] as string,
        headers,
        body,
        uploads,
        options.countShortfall,
      );
    if (route === 'events:ingest') return remember(ingestEvents(body), body);
    return remember(
      audienceMembers(route === 'audienceMembers:ingest' ? 'ingest' : 'remove', body, lists),
      body,
    );
  });
  return {
    ...server,
    expireTokens: () => live.clear(),
    tokensIssued: () => issued,
    members: (id) => [...(lists.get(id) ?? [])].sort(),
  };
}
