/**
 * The CloudEvents webhook abuse-protection handshake (CloudEvents "HTTP 1.1 Web Hooks", section
 * 4; docs/delivery.md "Webhooks"): before the first delivery of a `cloudevents-binary` or
 * `cloudevents-structured` destination, an `OPTIONS` request to its URL with
 * `WebHook-Request-Origin` asks the receiver whether it takes deliveries from us. It answers 2xx
 * with `WebHook-Allowed-Origin` (our origin, or `*`) and may say how many requests a minute it
 * takes (`WebHook-Allowed-Rate`). The request goes through the same sender as every delivery (the
 * egress gate). The answer is kept per process and endpoint: an allowed endpoint is asked once; a
 * refusal is kept for REFUSAL_KEPT_MS, so deliveries retried meanwhile are not sent and ask
 * nothing, and the first one after that asks again. A handshake that got no answer is not kept.
 */
import type { Destination } from '../../../schemas/settings.ts';
import type { InboundResponse, OutboundRequest } from '../driver.ts';
import { webhookUrl } from './driver.ts';
import { webhookFormat } from './formats.ts';

/** The handshake's request header naming the sender, and the receiver's answer headers. */
export const HANDSHAKE_HEADERS = Object.freeze({
  origin: 'webhook-request-origin',
  allowedOrigin: 'webhook-allowed-origin',
  allowedRate: 'webhook-allowed-rate',
});

/** How long a refused (or unreadable) answer is kept before the endpoint is asked again. */
export const REFUSAL_KEPT_MS = 60_000;
/** Endpoints remembered per process; past it the memory starts over (each asked once more). */
const KEPT_MAX = 1000;

/** What an endpoint answered: allowed (with its rate, when it said one), or refused and why. */
export type HandshakeAnswer =
  | { readonly allowed: true; readonly rate?: string }
  | { readonly allowed: false; readonly reason: string };

/**
 * The origin we name in `WebHook-Request-Origin`: a DNS-style name of the sending system. The
 * environment's name under `eventbus` (`shop-prod.eventbus`), lower case, other characters as `-`.
 */
export function requestOrigin(environment: string | undefined): string {
  const label = (environment ?? 'unknown').toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'unknown';
  return `${label}.eventbus`;
}

/** The handshake request for a destination that needs one (a CloudEvents format), else undefined. */
export function handshakeRequest(
  destination: Readonly<Destination>,
  environment: string | undefined,
): OutboundRequest | undefined {
  if (destination.type !== 'webhook' || !destination.base_url) return undefined;
  const format = webhookFormat(destination);
  if (format !== 'cloudevents-binary' && format !== 'cloudevents-structured') return undefined;
  const path = destination.config?.['path'];
  const url = webhookUrl(destination.base_url, typeof path === 'string' ? path : undefined);
  return {
    method: 'OPTIONS',
    url,
    redactedUrl: url,
    headers: { 'user-agent': 'eventbus-webhook/1', [HANDSHAKE_HEADERS.origin]: requestOrigin(environment) },
    body: '',
  };
}

/** Reads the receiver's answer to the handshake (headers by lower-case names); undefined when none came. */
export function readHandshake(response: InboundResponse, origin: string): HandshakeAnswer | undefined {
  if (response.kind === 'network_error') return undefined;
  if (response.kind === 'refused') return undefined;
  if (response.status < 200 || response.status > 299)
    return { allowed: false, reason: `the endpoint answered the handshake with HTTP ${response.status}` };
  const allowed = response.headers[HANDSHAKE_HEADERS.allowedOrigin]?.trim();
  if (allowed === undefined || allowed === '')
    return { allowed: false, reason: 'the endpoint answered the handshake without WebHook-Allowed-Origin' };
  if (allowed !== '*' && allowed.toLowerCase() !== origin)
    return {
      allowed: false,
      reason: `the endpoint allows origin ${JSON.stringify(allowed.slice(0, 100))}, not ${origin}`,
    };
  const rate = response.headers[HANDSHAKE_HEADERS.allowedRate]?.trim();
  return rate ? { allowed: true, rate } : { allowed: true };
}

/**
 * The answers of one process, by endpoint URL (each forward instance keeps its own). Deliveries
 * to an endpoint not asked yet share one handshake in flight: it is sent once, not once each.
 */
export class Handshakes {
  readonly #kept = new Map<string, { answer: HandshakeAnswer; until: number }>();
  readonly #asking = new Map<string, Promise<unknown>>();

  /**
   * The endpoint's answer: the kept one while it holds (no promise), else the one `ask` gets
   * (shared with every caller meanwhile). `ask` resolves with the answer, or with why none came
   * (a network error, a timeout, the egress gate), which is not kept: the next delivery asks again.
   */
  answer<U>(
    url: string,
    now: () => number,
    ask: () => Promise<HandshakeAnswer | U>,
  ): HandshakeAnswer | Promise<HandshakeAnswer | U> {
    const hit = this.#kept.get(url);
    if (hit !== undefined && hit.until > now()) return hit.answer;
    const asking = this.#asking.get(url);
    if (asking !== undefined) return asking as Promise<HandshakeAnswer | U>;
    const asked = ask()
      .then((answer) => {
        if (isAnswer(answer)) this.#keep(url, answer, now());
        return answer;
      })
      .finally(() => this.#asking.delete(url));
    this.#asking.set(url, asked);
    return asked;
  }

  /** Keeps an answer: an allowed one for the process's life, a refusal for REFUSAL_KEPT_MS. */
  #keep(url: string, answer: HandshakeAnswer, now: number): void {
    if (this.#kept.size >= KEPT_MAX) this.#kept.clear();
    this.#kept.set(url, { answer, until: answer.allowed ? Number.POSITIVE_INFINITY : now + REFUSAL_KEPT_MS });
  }
}

function isAnswer(value: unknown): value is HandshakeAnswer {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { allowed?: unknown }).allowed === 'boolean'
  );
}
