/**
 * A handler served by the real functions framework (its per-request domain and body parsing
 * included) on an ephemeral loopback port, for tests of what the framework changes around it.
 */
import type { AddressInfo } from 'node:net';
import { http, type Request, type Response } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';

export interface FrameworkServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveFunction(
  name: string,
  handler: (req: Request, res: Response) => unknown,
): Promise<FrameworkServer> {
  http(name, handler);
  const server = getTestServer(name);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The domain `node:domain` has made active, if any (it sets it on `process`, outside Node's types). */
export const activeDomain = (): unknown => (process as { domain?: unknown }).domain ?? undefined;

/** POSTs a classic Pub/Sub push of `data` to a function. */
export function postPush(
  url: string,
  push: {
    data: string;
    attributes: Record<string, string>;
    messageId: string;
    subscription: string;
    /** Pub/Sub's count of this message's pushes (1 unless a redelivery is meant). */
    deliveryAttempt?: number;
  },
): Promise<globalThis.Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      message: {
        data: Buffer.from(push.data).toString('base64'),
        attributes: push.attributes,
        messageId: push.messageId,
        publishTime: new Date().toISOString(),
      },
      subscription: push.subscription,
      deliveryAttempt: push.deliveryAttempt ?? 1,
    }),
  });
}
