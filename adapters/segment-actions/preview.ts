/**
 * The dry run of a `segment_action` delivery (issue #65; docs/catalog-destinations.md): one stored
 * event through the destination's actions (run.ts) with a fetch that records each request and
 * answers 200 `{}`, so nothing reaches the platform. Secrets are never read: each role the
 * destination names is given the stand-in `secret:<role>`, which the requests show where the
 * credential goes (a Basic pair decoded); any other credential header built from one (a
 * signature) shows REDACTED, since its value says nothing. Shared by the studio's catalogue preview and debugger
 * and `eventbus preview`, which each import this file lazily: actions-core loads only when a
 * catalogue destination is previewed.
 */

import type { ActionsPreviewResult, PreviewRequest } from '../../core/delivery/preview.ts';
import type { StoredEvent } from '../../core/event.ts';
import { OAUTH_ROLES } from '../../core/platforms/segment-action/oauth.ts';
import type { Destination } from '../../schemas/settings.ts';
import { runSegmentAction } from './run.ts';

/** One request an action made, as the recording fetch kept it (as preview shows any request). */
export type CapturedRequest = PreviewRequest;

/** What a dry run gives: each action's outcome and its requests; or why it could not run. */
export type SegmentActionPreview = ActionsPreviewResult;

/** The longest request body shown whole (the rest is cut, and says so). */
const MAX_PREVIEW_BODY = 64 * 1024;
/** What stands in for a secret's value. */
const secretStandIn = (role: string): string => `secret:${role}`;
/** Headers that carry a credential or one derived from it. */
const CREDENTIAL_HEADER = /authorization|token|secret|signature|key/i;

/** A fetch that keeps each request and answers 200 `{}`: the dry run never reaches a platform. */
function recordingFetch(into: CapturedRequest[], standIns: readonly string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const text = await request.text();
    let body: unknown = text;
    try {
      body = text === '' ? '' : JSON.parse(text);
    } catch {
      body = text.length > MAX_PREVIEW_BODY ? `${text.slice(0, MAX_PREVIEW_BODY)}… (cut)` : text;
    }
    const headers = Object.fromEntries(
      [...request.headers].map(([k, v]) => [k, shownHeader(k, v, standIns)]),
    );
    into.push({ method: request.method, url: request.url, headers, body });
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

/**
 * A header as shown: a credential header holding a stand-in as it is; a Basic pair holding one
 * decoded (`Basic base64(site-1:secret:api_key)`), so it shows which setting goes where; any
 * other credential header (a signature, a token derived from a secret) REDACTED.
 */
function shownHeader(name: string, value: string, standIns: readonly string[]): string {
  const holds = (text: string) => standIns.some((s) => text.includes(s));
  if (!CREDENTIAL_HEADER.test(name) || holds(value)) return value;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value)?.[1];
  let pair = '';
  try {
    pair = basic === undefined ? '' : atob(basic);
  } catch {
    // Not base64 after all: shown REDACTED below.
  }
  return holds(pair) ? `Basic base64(${pair})` : 'REDACTED';
}

/**
 * Runs `event` through the destination's actions without sending: the requests they build, in
 * order, and each action's outcome as if the platform had answered 200. Without the runtime's
 * packages installed (a bundle that does not carry them), says so instead.
 */
export async function previewSegmentAction(
  event: StoredEvent,
  destination: Readonly<Destination>,
  now: Date,
): Promise<SegmentActionPreview> {
  // An OAuth connection's credentials stand in too: the preview sends its access token, never refreshes.
  const roles = [
    ...Object.keys(destination.secrets ?? {}),
    ...(destination.connection === undefined ? [] : Object.values(OAUTH_ROLES)),
  ];
  const secrets = Object.fromEntries(roles.map((role) => [role, secretStandIn(role)]));
  const requests: CapturedRequest[] = [];
  try {
    const result = await runSegmentAction(event, destination, secrets, {
      fetch: recordingFetch(requests, Object.values(secrets)),
      now,
    });
    return { installed: true, outcomes: result.outcomes, requests };
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    return {
      installed: false,
      reason:
        'the Segment Action runtime is not installed here (@segment/actions-core): preview where it is, as under npm start',
    };
  }
}
