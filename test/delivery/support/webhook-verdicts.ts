/**
 * What the receivers' own libraries make of a webhook delivery: `standardwebhooks` and `svix`'s
 * verifier, unchanged, each 'ok' or its error's message.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';

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
