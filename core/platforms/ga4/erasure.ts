/**
 * GA4's user deletion (issue #61; docs/privacy.md, "Erasure today"): the Admin API's
 * `POST /v1alpha/properties/{property}:submitUserDeletion`, one request per identifier, a body of
 * exactly one of `userId` or `clientId`, under an OAuth token with the `analytics.edit` scope
 * (developers.google.com/analytics/devguides/config/admin/v1/rest/v1alpha/properties/submitUserDeletion;
 * the legacy User Deletion API's `userDeletionRequests:upsert` is being retired in its favour).
 * The client ids are the person's anonymous ids, the `_ga` client id the gateway derives from each
 * (gateway/id-cookies.ts, gaClientIds: what GA4 is sent for a page's events without a `_ga` of
 * the site's own) and, for each user id, the stand-in client id the GA4 mapping sends for an
 * event without an anonymous id (mapping.ts).
 */
import type { Destination } from '../../../schemas/settings.ts';
import * as t from '../../linkage/transforms.ts';
import {
  distinctIds,
  ERASURE_TIMEOUT_MS,
  type ErasedPerson,
  type ErasureGap,
  type ErasureSlot,
  type PlatformErasureRequest,
} from '../erasure.ts';

/** The Admin API's origin. */
export const GA4_ADMIN_BASE_URL = 'https://analyticsadmin.googleapis.com';
/** The OAuth scope `submitUserDeletion` requires. */
export const GA4_USER_DELETION_SCOPE = 'https://www.googleapis.com/auth/analytics.edit';
/** The body of each GA4 user deletion: the user ids, then the client ids the property may hold. */
export function ga4DeletionBodies(person: ErasedPerson): Record<string, string>[] {
  const userIds = distinctIds(person.userIds);
  const clientIds = distinctIds([
    ...person.anonymousIds,
    // What the gateway sent as client_id (and set as `_ga`) for a page without a `_ga` of its own.
    ...person.anonymousIds.flatMap((a) => t.pseudonymousId(a) ?? []),
    // What the mapping's `pseudonymous_id` sent as client_id for the user's events without one.
    ...userIds.flatMap((u) => t.pseudonymousId(u) ?? []),
  ]);
  return [...userIds.map((userId) => ({ userId })), ...clientIds.map((clientId) => ({ clientId }))];
}

function ga4ErasureRequests(
  d: Readonly<Destination>,
  person: ErasedPerson,
): PlatformErasureRequest[] | ErasureGap {
  const deletion = d.user_deletion;
  if (!deletion)
    return {
      platform: d.type,
      target: d.id,
      reason:
        'GA4 has a user deletion API, but this destination has no user_deletion.property (the GA4 property id) to send it to',
    };
  const origin = (deletion.url ?? GA4_ERASURE.baseUrl).replace(/\/+$/, '');
  const url = `${origin}/v1alpha/properties/${deletion.property}:submitUserDeletion`;
  return ga4DeletionBodies(person).map((body) => ({
    platform: d.type,
    target: d.id,
    request: {
      method: 'POST',
      url,
      body,
      auth: GA4_ERASURE.auth,
      timeoutMs: d.timeout_ms ?? ERASURE_TIMEOUT_MS,
    },
    asks: 'userId' in body ? 'user id deletion' : 'client id deletion',
    receipt: 'deletionRequestTime',
  }));
}

/** GA4's erasure slot: where, how authorised, by which identifiers, and the requests. */
export const GA4_ERASURE: ErasureSlot = {
  baseUrl: GA4_ADMIN_BASE_URL,
  auth: { kind: 'google_oauth', scope: GA4_USER_DELETION_SCOPE },
  identifiers: ['user_id', 'anonymous_id'],
  requests: (destination, person) => ga4ErasureRequests(destination, person),
};
