/**
 * A loopback LinkedIn Conversions API (`POST /rest/conversionEvents`, `Authorization: Bearer`, a
 * dated `LinkedIn-Version`, Rest.li 2.0; `X-RestLi-Method: BATCH_CREATE` for `{elements}` of up to
 * 5,000), checking requests against LinkedIn's published rules (docs/platforms.md, LinkedIn) and
 * answering as LinkedIn does: 201 for one event, 200 with a status per element for a batch, or
 * Rest.li's error `{status, serviceErrorCode?, code, message}`. Written out again on purpose, not
 * imported from core/platforms/linkedin/: the stand-in checks the driver, so it must not share
 * the driver's mistakes.
 */
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const BATCH_LIMIT = 5000;
const ID_TYPES = ['SHA256_EMAIL', 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', 'ACXIOM_ID', 'ORACLE_MOAT_ID'];
const EVENT_KEYS = new Set(['conversion', 'conversionHappenedAt', 'conversionValue', 'eventId', 'user']);

const restliError = (status: number, code: string, message: string, problems: string[] = []): Answer => ({
  status,
  problems: problems.length > 0 ? problems : [message],
  body: { status, code, message, ...(status === 401 ? { serviceErrorCode: 65600 } : {}) },
});

/** A `YYYYMM` version LinkedIn still serves at `now`: published, and less than a year old. */
function versionProblem(version: string | undefined, now: Date): string | undefined {
  if (version === undefined)
    return 'A version must be present. Please specify a version by adding the LinkedIn-Version header';
  const m = /^(20\d{2})(0[1-9]|1[0-2])$/.exec(version);
  if (!m) return `Requested version ${version} is not active`;
  const months = now.getUTCFullYear() * 12 + now.getUTCMonth() - (Number(m[1]) * 12 + Number(m[2]) - 1);
  return months < 0 || months >= 12 ? `Requested version ${version} is not active` : undefined;
}

/** The problems of one conversion event, LinkedIn's way of naming fields. */
function eventProblems(e: unknown, at: string, now: Date): string[] {
  if (!isObject(e)) return [`${at} is not an object`];
  const out: string[] = [];
  for (const k of Object.keys(e))
    if (!EVENT_KEYS.has(k)) out.push(`${at}/${k} is not a field of ConversionEvent`);
  if (typeof e['conversion'] !== 'string' || !/^urn:lla:llaPartnerConversion:\d+$/.test(e['conversion']))
    out.push(`${at}/conversion must be a urn:lla:llaPartnerConversion URN`);
  const t = e['conversionHappenedAt'];
  if (!Number.isInteger(t)) out.push(`${at}/conversionHappenedAt must be epoch milliseconds`);
  else if ((t as number) < 1e11) out.push(`${at}/conversionHappenedAt is in seconds, not milliseconds`);
  else if ((t as number) < now.getTime() - 90 * 86_400_000)
    out.push(`${at}/conversionHappenedAt is more than 90 days in the past`);
  const value = e['conversionValue'];
  if (value !== undefined) {
    if (
      !isObject(value) ||
      typeof value['amount'] !== 'string' ||
      !/^[A-Z]{3}$/.test(String(value['currencyCode']))
    )
      out.push(`${at}/conversionValue needs currencyCode and amount as a string`);
  }
  const user = e['user'];
  if (!isObject(user) || !Array.isArray(user['userIds'])) {
    out.push(`${at}/user/userIds is required`);
    return out;
  }
  for (const [i, id] of (user['userIds'] as unknown[]).entries()) {
    if (!isObject(id) || !ID_TYPES.includes(id['idType'] as string) || typeof id['idValue'] !== 'string')
      out.push(`${at}/user/userIds/${i} needs a known idType and an idValue`);
    else if (id['idType'] === 'SHA256_EMAIL' && !SHA256_HEX.test(id['idValue']))
      out.push(`${at}/user/userIds/${i}/idValue must be a SHA-256 hex digest`);
  }
  const info = isObject(user['userInfo']) ? user['userInfo'] : {};
  if ((user['userIds'] as unknown[]).length === 0 && !(info['firstName'] && info['lastName']))
    out.push(`${at}/user needs a userId or firstName and lastName`);
  return out;
}

/** Starts the LinkedIn stand-in. `accessToken`, when given, is the only token it accepts. */
export function startLinkedInReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, headers, body }) => {
    if (method !== 'POST' || path !== '/rest/conversionEvents')
      return restliError(404, 'RESOURCE_NOT_FOUND', `No virtual resource found for ${path}`);
    const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return restliError(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token');
    const version = versionProblem(headers['linkedin-version'], now());
    if (version !== undefined)
      return restliError(
        headers['linkedin-version'] === undefined ? 400 : 426,
        headers['linkedin-version'] === undefined ? 'VERSION_MISSING' : 'NONEXISTENT_VERSION',
        version,
      );
    if (headers['x-restli-protocol-version'] !== '2.0.0')
      return restliError(400, 'ILLEGAL_ARGUMENT', 'X-Restli-Protocol-Version 2.0.0 is required');
    const batch = headers['x-restli-method'] === 'BATCH_CREATE';
    if (!batch) {
      const problems = eventProblems(body, '', now());
      if (problems.length > 0) return restliError(422, 'UNPROCESSABLE_ENTITY', problems.join('; '), problems);
      return { status: 201 };
    }
    const elements = isObject(body) ? body['elements'] : undefined;
    if (!Array.isArray(elements) || elements.length === 0)
      return restliError(400, 'ILLEGAL_ARGUMENT', '/elements is required for BATCH_CREATE');
    if (elements.length > BATCH_LIMIT)
      return restliError(
        422,
        'BATCH_SIZE_EXCEEDED',
        `Batch size ${elements.length} exceeds the maximum of ${BATCH_LIMIT}`,
      );
    const results = elements.map((e, i) => eventProblems(e, `/elements/${i}`, now()));
    return {
      status: 200,
      problems: results.flat(),
      body: {
        elements: results.map((p) =>
          p.length === 0 ? { status: 201 } : { status: 422, message: p.join('; ') },
        ),
      },
    };
  });
}
