/**
 * GA4's client id and the `_ga` cookie (issue #96; docs/browser.md, "Ids the server sets"). gtag.js
 * keeps a browser's client id in the first-party cookie `_ga` (developers.google.com/analytics/
 * devguides/collection/gtagjs/cookies-user-id: the cookie's name, its `auto` domain — the highest
 * the page may set — and its renewal on every page). The value is `GA1.<n>.<random>.<seconds>`: a
 * version, the number of the cookie domain's labels less one (`1` on `shop.example`), then the
 * client id itself, a random number and the time it was made in Unix seconds; the client id is the
 * last two parts (`468604437.1611708469`). Google does not publish the format as an interface, so a
 * value that does not read as one is ignored, never guessed at.
 *
 * The gateway reads the page's `_ga` (gtag's, or one it set) into the event's
 * `campaign.ga_client_id`, or derives one from the anonymous id where none is there
 * (gateway/id-cookies.ts), only where the storage rules say to store `ga`; the GA4 mapping sends
 * that id as `client_id`; and the answer sets `_ga` from the same id, so gtag.js on the page reads
 * it and both send one client. Pure, no imports: the platform's facts (facts.ts) use it.
 */

/** A client id as gtag.js makes it: digits, a dot, digits (at most 20 each). */
const CLIENT_ID = /^\d{1,20}\.\d{1,20}$/;
/** A `_ga` cookie: `GA1.`, the domain's labels less one (with `-<path depth>` where a path was set), the id. */
const GA_COOKIE = /^GA1\.\d{1,3}(?:-\d{1,3})?\.(\d{1,20}\.\d{1,20})$/;

/** Whether a value is a client id in gtag.js's form. */
export const isGaClientId = (value: unknown): value is string =>
  typeof value === 'string' && CLIENT_ID.test(value);

/** The client id a `_ga` cookie holds, or undefined when it is absent or not in gtag's format. */
export function gaClientIdOf(cookie: string | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  let text = cookie.trim();
  try {
    text = decodeURIComponent(text);
  } catch {
    return undefined;
  }
  return GA_COOKIE.exec(text)?.[1];
}

/** The `_ga` value for a client id on a cookie domain whose labels less one are `index`. */
export const gaCookie = (index: number, clientId: string): string => `GA1.${index}.${clientId}`;
