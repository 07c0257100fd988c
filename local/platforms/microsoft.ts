/**
 * A loopback Microsoft Advertising UET Conversions API (`POST /v1/{tagId}/events`, `Authorization:
 * Bearer`, `{data}` of 1 to 1,000 events), checking requests against the published rules
 * (docs/platforms.md, Microsoft) and answering in its shape: `{eventsReceived, traceId}`, or
 * `{eventsReceived: 0, error {code, message, details[] {index, propertyName, attemptedValue,
 * errorMessage}}, traceId}`. Written out again on purpose, not imported from
 * core/platforms/microsoft/: the stand-in checks the driver.
 */
import { randomUUID } from 'node:crypto';
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const LIMIT = 1000;
const PLAIN = ['clientIpAddress', 'clientUserAgent', 'msclkid'];

interface Detail {
  readonly index: number;
  readonly propertyName: string;
  readonly attemptedValue: unknown;
  readonly errorMessage: string;
}

const uetError = (status: number, code: string, message: string, details: Detail[] = []): Answer => ({
  status,
  problems:
    details.length > 0
      ? details.map((d) => `data[${d.index}].${d.propertyName}: ${d.errorMessage}`)
      : [message],
  body: { eventsReceived: 0, error: { code, message, details }, traceId: randomUUID() },
});

function eventDetails(e: unknown, index: number): Detail[] {
  const d = (propertyName: string, attemptedValue: unknown, errorMessage: string): Detail => ({
    index,
    propertyName,
    attemptedValue,
    errorMessage,
  });
  if (!isObject(e)) return [d('', e, 'The event must be an object.')];
  const out: Detail[] = [];
  if (e['eventType'] !== 'pageLoad' && e['eventType'] !== 'custom')
    out.push(d('eventType', e['eventType'], "eventType must be 'pageLoad' or 'custom'."));
  if (e['eventType'] === 'custom' && (typeof e['eventName'] !== 'string' || e['eventName'] === ''))
    out.push(d('eventName', e['eventName'], 'eventName is required for custom events.'));
  const t = e['eventTime'];
  if (!Number.isInteger(t) || (t as number) > 1e11)
    out.push(d('eventTime', t, 'eventTime must be a Unix timestamp in seconds.'));
  if (e['adStorageConsent'] !== undefined && e['adStorageConsent'] !== 'G' && e['adStorageConsent'] !== 'D')
    out.push(d('adStorageConsent', e['adStorageConsent'], "adStorageConsent must be 'G' or 'D'."));
  const user = e['userData'];
  if (!isObject(user)) return [...out, d('userData', user, 'userData is required.')];
  for (const f of ['em', 'ph'])
    if (user[f] !== undefined && !(typeof user[f] === 'string' && SHA256_HEX.test(user[f] as string)))
      out.push(d(`userData.${f}`, user[f], `${f} must be a SHA-256 hash.`));
  for (const f of PLAIN)
    if (typeof user[f] === 'string' && SHA256_HEX.test(user[f] as string))
      out.push(d(`userData.${f}`, user[f], `${f} must not be hashed.`));
  return out;
}

/** Starts the Microsoft stand-in. `accessToken`, when given, is the only token it accepts. */
export function startMicrosoftReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  return startPlatformServer(({ method, path, headers, body }) => {
    if (method !== 'POST' || !/^\/v1\/[0-9]+\/events$/.test(path))
      return uetError(404, 'NotFound', `No route ${method} ${path}; the tag id is numeric.`);
    const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return uetError(401, 'Unauthorized', 'The authorization token is missing, invalid or expired.');
    const data = isObject(body) ? body['data'] : undefined;
    if (!Array.isArray(data) || data.length === 0 || data.length > LIMIT)
      return uetError(
        400,
        'InvalidRequest',
        `data must hold 1 to ${LIMIT} events, got ${Array.isArray(data) ? data.length : 'none'}.`,
      );
    const details = data.flatMap((e, i) => eventDetails(e, i));
    if (details.length > 0)
      return uetError(400, 'ValidationError', 'One or more events are invalid.', details);
    return { status: 200, body: { eventsReceived: data.length, traceId: randomUUID() } };
  });
}
