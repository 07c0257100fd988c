/**
 * Who sent an event, as the gateway tells it from the credential (docs/gateway.md, "Who sent an
 * event"), and what follows from it downstream: whose device the request's address and user agent
 * are (only a browser's), and where a conversion happened when the event does not say.
 */

/**
 * - `browser`: a write key whose request came with an Origin the key lists (a page's script). The
 *   request's address, user agent and client hints are the person's device.
 * - `server`: a project token, a Google identity, a server-usable write key called without a listed
 *   Origin. The request comes from the producer's own machine: the event carries only what it sent.
 * - `translator`: a translator's payload (a vendor's webhook, a file, a Segment library); signed,
 *   URL-token or otherwise, the request is the vendor's or the uploader's, never the person's.
 */
export type Sender = 'browser' | 'server' | 'translator';
export const SENDERS: readonly Sender[] = Object.freeze(['browser', 'server', 'translator']);

/**
 * The message attribute naming an event's sender, set by the gateway over any value a producer
 * sent, kept in the stored event's attributes and carried to `forward` as the stored event's
 * `sender`. A native publish has none (its producer is trusted by IAM, and may set it).
 */
export const SENDER_ATTRIBUTE = 'sender';

/** The sender an attribute value names, or undefined (absent or unknown: a native publish, an old row). */
export function senderOf(value: string | undefined): Sender | undefined {
  return value === 'browser' || value === 'server' || value === 'translator' ? value : undefined;
}

/**
 * Whether an event happened on a website, for a platform's default `action_source` when neither the
 * event nor the destination says: when it names its page (`page.url`) — a browser's, or a backend's
 * forwarding a page's event — but never a translator's (a webhook or a file is not a visit, whatever
 * page its payload names). Without a page it is not a website's even from a browser: Meta and
 * Snapchat refuse a website event without its page's URL (docs/platforms.md). An event whose sender
 * is not known (a native publish, a row replayed from the warehouse) is judged by its page, as
 * before senders were told apart.
 */
export function happenedOnWebsite(event: {
  readonly sender?: Sender | undefined;
  readonly page?: Readonly<Record<string, string | undefined>> | undefined;
}): boolean {
  return event.sender !== 'translator' && Boolean(event.page?.['url']);
}
