/**
 * What the receivers' own libraries make of a webhook delivery: `standardwebhooks` and `svix`'s
 * verifier, unchanged, each 'ok' or its error's message.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import type { OutboundRequest } from '../../core/platforms/driver.ts';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';

export interface SignedDelivery {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Each library's verdict on one delivery under one `whsec_` key (verified against the real clock). */
export function verdicts(d: SignedDelivery, key: string): { standard: string; svix: string } {
  const run = (f: () => unknown) => {
    try {
      f();
      return 'ok';
    } catch (err) {
      return (err as Error).message;
    }
  };
  return {
    standard: run(() => new StandardWebhook(key).verify(d.body, { ...d.headers })),
    svix: run(() => new SvixWebhook(key).verify(d.body, { ...d.headers })),
  };
}

/** A `standard-webhooks` delivery of one `purchase` event to `crm`, signed with `secret` at `now`. */
export function standardDelivery(secret: string, now: Date, eventId = 'e-1'): OutboundRequest {
  const p = webhookDriver.prepare(
    { event_id: eventId, event_name: 'purchase', event_time: now.toISOString(), event_data: { value: 1 } },
    {
      destination: {
        id: 'crm',
        type: 'webhook',
        base_url: 'https://crm.example',
        config: { format: 'standard-webhooks' },
      },
      secrets: { signing_key: secret },
      now,
    },
  );
  if (!p.ok) throw new Error(p.reason);
  return p.request;
}
