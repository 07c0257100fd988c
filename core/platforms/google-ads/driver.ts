/**
 * Data Manager API requests for Google Ads (docs/platforms.md §6):
 * `POST {base}/v1/events:ingest` with an OAuth access token (`Authorization: Bearer`, scope
 * `datamanager`), the accounts in the body — one destination per conversion action the events
 * go to (its `reference` is the action id each event names in `destinationReferences`) — hashes
 * in hex, and `validateOnly` in test mode. Up to 2,000 events a request.
 */
import type { StoredEvent } from '../../event.ts';
import { type MappedEvent, readSource } from '../../linkage/engine.ts';
import { happenedOnWebsite } from '../../sender.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { GOOGLE_ADS_API } from './api-version.ts';

export const GOOGLE_ADS_BASE_URL = 'https://datamanager.googleapis.com';
export const DATA_MANAGER_SCOPE = 'https://www.googleapis.com/auth/datamanager';
/** The secret role holding OAuth credentials (a service account key or an authorized user's refresh token). */
export const CREDENTIALS_ROLE = 'credentials';
/** The role the forward function fills with the access token it obtained from the credentials. */
export const ACCESS_TOKEN_ROLE = 'access_token';

/** Meta-style `action_source` values the catalogue carries, as Data Manager's `eventSource`. */
const EVENT_SOURCE: Readonly<Record<string, string>> = {
  website: 'WEB',
  app: 'APP',
  physical_store: 'IN_STORE',
  phone_call: 'PHONE',
};

/**
 * A Data Manager event made of the mapped event: routed to its conversion action (the mapped
 * event's name) and given an `eventSource` when the mapping set none — `WEB` for an event that
 * happened on a website (core/sender.ts: a browser's, or a server's with a page), else the event's
 * `action_source` in Google's words, else `OTHER`.
 */
export function googleAdsEvent(mapped: MappedEvent, event: StoredEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { destinationReferences: [mapped.event], ...mapped.payload };
  if (out['eventSource'] === undefined) out['eventSource'] = eventSource(event);
  return out;
}

function eventSource(event: StoredEvent): string {
  if (happenedOnWebsite(event)) return 'WEB';
  const declared = readSource(event, 'action_source');
  return (typeof declared === 'string' && EVENT_SOURCE[declared]) || 'OTHER';
}

/** The Google Ads account (10 digits, no hyphens) a config value names. */
const account = (id: string) => ({ accountType: 'GOOGLE_ADS', accountId: id.replace(/-/g, '') });

/** The body carrying some events: a destination per conversion action among them. */
export function googleAdsBody(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): Record<string, unknown> {
  const d = ctx.destination;
  const operating = configText(d, 'operating_account_id') ?? '';
  const login = configText(d, 'login_account_id');
  const actions = [
    ...new Set(events.flatMap((e) => (e['destinationReferences'] as string[] | undefined) ?? [])),
  ];
  const body: Record<string, unknown> = {
    destinations: actions.map((id) => ({
      operatingAccount: account(operating),
      ...(login ? { loginAccount: account(login) } : {}),
      productDestinationId: id,
      reference: id,
    })),
    events,
  };
  // Required whenever user data is sent; the mapping hashes to lowercase hex.
  if (events.some((e) => e['userData'] !== undefined)) body['encoding'] = 'HEX';
  if (d.test_mode === true) body['validateOnly'] = true;
  return body;
}

/** The request carrying some events. The access token is never in the URL. */
export function googleAdsRequest(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const url = `${baseUrl(ctx.destination, GOOGLE_ADS_BASE_URL)}/${GOOGLE_ADS_API.version}/events:ingest`;
  return {
    method: 'POST',
    url,
    redactedUrl: url,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${ctx.secrets[ACCESS_TOKEN_ROLE] ?? ''}`,
    },
    body: JSON.stringify(googleAdsBody(events, ctx)),
  };
}
