/**
 * The Google Ads API's reporting, as far as a count needs it, for the Google Ads stand-in:
 * `POST /v{N}/customers/{customer_id}/googleAds:searchStream` (and `:search`) with a GAQL
 * `{"query"}` over `offline_conversion_upload_conversion_action_summary`, the one resource served.
 * Strict as Google's reference: a bearer token, the `developer-token` header
 * (`RequestError.DEVELOPER_TOKEN_PARAMETER_MISSING` without it), a 10-digit customer id, a query
 * of `SELECT … FROM … [WHERE …] [LIMIT n]` naming only the resource's documented fields
 * (`QueryError.BAD_FIELD_NAME`), only that resource (`BAD_RESOURCE_TYPE_IN_FROM_CLAUSE`), and
 * filtering only on a filterable field (`conversion_action_id`, `=` or `IN`); refusals in Google
 * Ads' error envelope, a `GoogleAdsFailure` detail naming the error code. The counts come from the
 * uploads the stand-in accepted (`events:ingest`): per conversion action and upload day (UTC, the
 * stand-in's account time zone) the events that were kept, less the configured shortfall, as
 * `successfulCount`; those it found too old later, and the shortfall, as `failedCount`.
 * Written again on purpose, not imported from core/platforms/google-ads/counts.ts.
 */
import { randomUUID } from 'node:crypto';
import { type Answer, countedOf, isObject } from './server.ts';

/** The resource served and its documented fields (fields/v26/offline_conversion_upload_conversion_action_summary). */
const RESOURCE = 'offline_conversion_upload_conversion_action_summary';
const FIELDS = new Set([
  'alerts',
  'client',
  'conversion_action_id',
  'conversion_action_name',
  'daily_summaries',
  'job_summaries',
  'last_upload_date_time',
  'pending_event_count',
  'resource_name',
  'status',
  'successful_event_count',
  'total_event_count',
]);
/** Of them, those the reference lists as not filterable (messages and repeated ones). */
const NOT_FILTERABLE = new Set(['alerts', 'daily_summaries', 'job_summaries']);
/** The path: the API version, the customer and the method. */
export const REPORTING_PATH = /^\/(v\d+)\/customers\/([^/:]+)\/googleAds:(searchStream|search)$/;

/**
 * Per operating account and conversion action (`<account>/<action>`), per upload day
 * (YYYY-MM-DD): what the stand-in kept and found too old.
 */
export type UploadTally = Map<string, Map<string, { kept: number; expired: number }>>;

/** Adds an accepted `events:ingest` body's events to the tally, per account and conversion action. */
export function tallyUploads(
  tally: UploadTally,
  body: unknown,
  day: string,
  tooOld: (e: unknown) => boolean,
): void {
  if (!isObject(body) || !Array.isArray(body['events']) || !Array.isArray(body['destinations'])) return;
  const actions = new Map<string, string>();
  for (const d of body['destinations'])
    if (isObject(d) && typeof d['reference'] === 'string' && isObject(d['operatingAccount']))
      actions.set(d['reference'], `${d['operatingAccount']['accountId']}/${d['productDestinationId']}`);
  for (const e of body['events']) {
    const refs = isObject(e) && Array.isArray(e['destinationReferences']) ? e['destinationReferences'] : [];
    for (const ref of refs) {
      const action = actions.get(String(ref));
      if (action === undefined) continue;
      const days = tally.get(action) ?? new Map<string, { kept: number; expired: number }>();
      tally.set(action, days);
      const t = days.get(day) ?? { kept: 0, expired: 0 };
      days.set(day, t);
      if (tooOld(e)) t.expired++;
      else t.kept++;
    }
  }
}

/** Google Ads' error envelope with a GoogleAdsFailure detail naming the error code. */
function adsError(
  code: number,
  status: string,
  version: string,
  kind: string,
  error: string,
  message: string,
): Answer {
  return {
    status: code,
    problems: [`${kind}.${error}: ${message}`],
    body: {
      error: {
        code,
        message: code === 401 ? message : 'Request contains an invalid argument.',
        status,
        details: [
          {
            '@type': `type.googleapis.com/google.ads.googleads.${version}.errors.GoogleAdsFailure`,
            errors: [{ errorCode: { [kind]: error }, message }],
            requestId: randomUUID().replaceAll('-', '').slice(0, 22),
          },
        ],
      },
    },
  };
}

interface Gaql {
  readonly fields: string[];
  readonly resource: string;
  readonly where?: string;
}

/** A GAQL query's parts, or the QueryError naming what is wrong. */
function parseGaql(query: string): Gaql | { error: string; message: string } {
  const q = query.trim();
  if (!/^SELECT\s/i.test(q))
    return { error: 'EXPECTED_SELECT', message: 'SELECT is missing at the beginning of query.' };
  const m = /^SELECT\s+(.+?)\s+FROM\s+([A-Za-z_][\w.]*)(?:\s+WHERE\s+(.+?))?(?:\s+LIMIT\s+\d+)?\s*$/is.exec(
    q,
  );
  if (!m) return { error: 'EXPECTED_FROM', message: 'Missing FROM clause.' };
  const fields = (m[1] as string).split(',').map((f) => f.trim());
  return { fields, resource: m[2] as string, ...(m[3] ? { where: (m[3] as string).trim() } : {}) };
}

/** The field a GAQL name means on the served resource, or undefined. */
function fieldOf(name: string): string | undefined {
  const [resource, field, ...rest] = name.split('.');
  return resource === RESOURCE && field !== undefined && rest.length === 0 && FIELDS.has(field)
    ? field
    : undefined;
}

/** The conversion action ids a WHERE clause keeps (undefined: all), or the QueryError. */
function filterOf(where: string | undefined): Set<string> | undefined | { error: string; message: string } {
  if (where === undefined) return undefined;
  const m = /^([\w.]+)\s*(=|IN)\s*(\(([^)]*)\)|\d+)$/i.exec(where);
  if (!m)
    return { error: 'QUERY_ERROR', message: `Only ${RESOURCE}.conversion_action_id = or IN is served here.` };
  const field = fieldOf(m[1] as string);
  if (field === undefined)
    return { error: 'BAD_FIELD_NAME', message: `Unrecognized field in the query: '${m[1]}'.` };
  if (NOT_FILTERABLE.has(field))
    return {
      error: 'PROHIBITED_FIELD_IN_WHERE_CLAUSE',
      message: `Field '${m[1]}' cannot be used in WHERE clause.`,
    };
  if (field !== 'conversion_action_id')
    return { error: 'QUERY_ERROR', message: `Only ${RESOURCE}.conversion_action_id is filtered here.` };
  const values = (m[4] ?? (m[3] as string)).split(',').map((v) => v.trim());
  if (values.some((v) => !/^\d+$/.test(v)))
    return { error: 'BAD_NUMBER', message: 'Encountered number can not be parsed.' };
  return new Set(values);
}

/** A field's value on a summary row, in proto3 JSON (int64 as strings, zeros left out). */
function rowValue(
  field: string,
  customer: string,
  action: string,
  days: ReadonlyMap<string, { kept: number; expired: number }>,
  shortfall: number | undefined,
): [string, unknown] | undefined {
  const summaries = [...days]
    .sort(([a], [b]) => (a < b ? 1 : -1))
    .map(([day, t]) => {
      const ok = countedOf(t.kept, shortfall);
      const failed = t.expired + (t.kept - ok);
      return {
        ...(ok > 0 ? { successfulCount: String(ok) } : {}),
        ...(failed > 0 ? { failedCount: String(failed) } : {}),
        uploadDate: day,
      };
    });
  const total = [...days.values()].reduce((n, t) => n + t.kept + t.expired, 0);
  const ok = summaries.reduce((n, s) => n + Number(s.successfulCount ?? 0), 0);
  switch (field) {
    case 'conversion_action_id':
      return ['conversionActionId', action];
    case 'conversion_action_name':
      return ['conversionActionName', `Conversion action ${action}`];
    case 'client':
      return ['client', 'GOOGLE_ADS_API'];
    case 'resource_name':
      return [
        'resourceName',
        `customers/${customer}/offlineConversionUploadConversionActionSummaries/${action}~GOOGLE_ADS_API`,
      ];
    case 'daily_summaries':
      return ['dailySummaries', summaries];
    case 'total_event_count':
      return total > 0 ? ['totalEventCount', String(total)] : undefined;
    case 'successful_event_count':
      return ok > 0 ? ['successfulEventCount', String(ok)] : undefined;
    case 'status':
      return ['status', ok === total ? 'EXCELLENT' : 'NEEDS_ATTENTION'];
    default:
      // alerts, job_summaries, last_upload_date_time and pending counts: empty here (all processed at once).
      return undefined;
  }
}

/**
 * `googleAds:searchStream` / `:search`: the refusals above, else the summary rows of the
 * customer's conversion actions uploaded to (those of uploads naming it as their operating
 * account), one batch for searchStream.
 */
export function searchUploadSummaries(
  version: string,
  customer: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  tally: UploadTally,
  shortfall: number | undefined,
): Answer {
  if (!headers['developer-token'])
    return adsError(
      400,
      'INVALID_ARGUMENT',
      version,
      'requestError',
      'DEVELOPER_TOKEN_PARAMETER_MISSING',
      'The developer-token parameter is required for all requests.',
    );
  if (!/^\d{10}$/.test(customer))
    return adsError(
      400,
      'INVALID_ARGUMENT',
      version,
      'requestError',
      'INVALID_CUSTOMER_ID',
      'Invalid customer ID.',
    );
  const query = isObject(body) ? body['query'] : undefined;
  if (typeof query !== 'string' || query.trim() === '')
    return adsError(
      400,
      'INVALID_ARGUMENT',
      version,
      'requestError',
      'REQUIRED_FIELD_MISSING',
      'The query is required.',
    );
  const gaql = parseGaql(query);
  if ('error' in gaql)
    return adsError(400, 'INVALID_ARGUMENT', version, 'queryError', gaql.error, gaql.message);
  if (gaql.resource !== RESOURCE)
    return adsError(
      400,
      'INVALID_ARGUMENT',
      version,
      'queryError',
      'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      `Invalid resource type was specified in the FROM clause: '${gaql.resource}'.`,
    );
  const unknown = gaql.fields.find((f) => fieldOf(f) === undefined);
  if (unknown !== undefined)
    return adsError(
      400,
      'INVALID_ARGUMENT',
      version,
      'queryError',
      'BAD_FIELD_NAME',
      `Unrecognized field in the query: '${unknown}'.`,
    );
  const keep = filterOf(gaql.where);
  if (keep !== undefined && !(keep instanceof Set))
    return adsError(400, 'INVALID_ARGUMENT', version, 'queryError', keep.error, keep.message);
  const results = [...tally]
    .flatMap(([key, days]) => {
      const [account, action] = key.split('/') as [string, string];
      return account === customer && (keep === undefined || keep.has(action))
        ? [[action, days] as const]
        : [];
    })
    .map(([action, days]) => ({
      offlineConversionUploadConversionActionSummary: Object.fromEntries(
        gaql.fields
          .map((f) => rowValue(fieldOf(f) as string, customer, action, days, shortfall))
          .filter((v): v is [string, unknown] => v !== undefined),
      ),
    }));
  const fieldMask = gaql.fields
    .map(
      (f) =>
        `${RESOURCE.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}.${(fieldOf(f) as string).replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}`,
    )
    .join(',');
  const requestId = randomUUID().replaceAll('-', '').slice(0, 22);
  const page = { ...(results.length > 0 ? { results } : {}), fieldMask, requestId };
  return { status: 200, body: method === 'searchStream' ? [page] : page };
}
