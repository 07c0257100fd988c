/**
 * The catalogue's delivery tests' common parts (test/delivery/segment-action*.test.ts): a
 * capturing stand-in for the platforms on a loopback port, reached through `base_url` (every
 * request goes to `<base_url>/<original host><path>`), a push of a delivery message, and the
 * forward core's dependencies with the driver forward-catalog carries.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import type { ForwardDeps } from '../../core/delivery/forward.ts';
import { decodePush, deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { Destination } from '../../schemas/settings.ts';

export interface Captured {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

/** What the stand-in answers a request with when no scripted answer is left: status, text, type. */
export type AnswerOf = (
  method: string,
  path: string,
  /** The request's body, as text. */
  text: string,
) => { readonly status: number; readonly text: string; readonly contentType?: string } | undefined;

/**
 * The stand-in: records each request, answers the next scripted answer; when none is left, what
 * `answerOf` gives for the request (the platform's recorded answer), else 200 `{}`.
 */
export function standIn(answerOf?: AnswerOf): Promise<{
  server: Server;
  base: string;
  captured: Captured[];
  answers: { status: number; body: unknown; headers?: Record<string, string> }[];
}> {
  const captured: Captured[] = [];
  const answers: { status: number; body: unknown; headers?: Record<string, string> }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      captured.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: bodyOf(text),
      });
      const a = answers.shift();
      const recorded = a === undefined ? answerOf?.(req.method ?? '', req.url ?? '', text) : undefined;
      if (recorded !== undefined)
        res
          .writeHead(recorded.status, { 'content-type': recorded.contentType ?? 'application/json' })
          .end(recorded.text);
      else
        res
          .writeHead(a?.status ?? 200, { 'content-type': 'application/json', ...a?.headers })
          .end(JSON.stringify(a?.body ?? {}));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ server, base: `http://127.0.0.1:${port}/standin`, captured, answers });
    }),
  );
}

/** A request's body: its JSON, else its text (a form, a CSV upload), undefined when empty. */
function bodyOf(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function push(event: StoredEvent, destination: string, attempt = 1): PushedMessage {
  const m = deliveryMessage(event, destination);
  const decoded = decodePush({
    message: {
      data: Buffer.from(m.data).toString('base64'),
      attributes: m.attributes,
      messageId: `m-${event.event_id}`,
    },
    subscription: `projects/p/subscriptions/deliveries-${destination}`,
    deliveryAttempt: attempt,
  });
  assert.ok(decoded.ok);
  return decoded.push;
}

export function deps(destinations: Destination[], secrets: Record<string, string>, now: Date): ForwardDeps {
  const driver = segmentActionDriver(globalThis.fetch);
  return {
    destinations,
    driverFor: (type) => (type === driver.type ? driver : undefined),
    getSecret: (name) => secrets[name],
    send: () => Promise.reject(new Error('the core sender is not used for segment_action')),
    now: () => now,
  };
}

/** A Klaviyo destination under `base` running trackEvent with `mapping` (its key in KLAVIYO_KEY). */
export function klaviyoTrackEvent(base: string, mapping: Record<string, unknown>): Destination {
  return {
    id: 'klaviyo',
    type: 'segment_action',
    destination: 'klaviyo',
    base_url: base,
    secrets: { api_key: 'KLAVIYO_KEY' },
    actions: [{ action: 'trackEvent', mapping }],
  };
}
