/**
 * Sending to a settings connection (rules' webhooks and chat messages, syncs' webhooks): the URL
 * (or the secret holding it), a JSON body signed like delivery webhooks when the connection has a
 * `signing_key`, the connection's timeout. A non-2xx answer or a network error is a failure the
 * caller retries.
 */
import type { InboundResponse, OutboundRequest } from '../../core/platforms/driver.ts';
import { signWebhook, WEBHOOK_HEADERS } from '../../core/platforms/webhook/driver.ts';
import type { Connection } from '../../schemas/settings.ts';

export interface ConnectionDeps {
  readonly secret: (name: string) => Promise<string | undefined>;
  readonly send: (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;
}

export type PostResult =
  | { ok: true; http: number | null; body?: string }
  | { ok: false; reason: string; http: number | null };

export async function postJson(
  deps: ConnectionDeps,
  c: Readonly<Connection>,
  body: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<PostResult> {
  const url = await connectionUrl(deps, c);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
  const signingKey = c.secrets?.['signing_key'];
  if (signingKey) {
    const key = await deps.secret(signingKey);
    if (!key)
      return { ok: false, reason: `secret ${signingKey} of connection ${c.id} has no value`, http: null };
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers[WEBHOOK_HEADERS.timestamp] = timestamp;
    headers[WEBHOOK_HEADERS.signature] = signWebhook(key, { timestamp, method: 'POST', url, body });
  }
  const res = await deps.send(
    { method: 'POST', url, redactedUrl: redact(url), headers, body },
    c.timeout_ms ?? 10_000,
  );
  if (res.kind === 'network_error') return { ok: false, reason: res.message, http: null };
  if (res.kind === 'refused') return { ok: false, reason: res.reason, http: null };
  if (res.status >= 200 && res.status < 300) return { ok: true, http: res.status, body: res.body };
  return { ok: false, reason: `HTTP ${res.status}: ${res.body.slice(0, 200)}`, http: res.status };
}

async function connectionUrl(deps: ConnectionDeps, c: Readonly<Connection>): Promise<string> {
  if (c.url) return c.url;
  if (c.url_secret) {
    const url = await deps.secret(c.url_secret);
    if (url) return url.trim();
    throw new Error(`secret ${c.url_secret} of connection ${c.id} has no value`);
  }
  throw new Error(`connection ${c.id} has neither url nor url_secret`);
}

/** Chat webhook URLs carry their credential in the path: logs see the origin only. */
function redact(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '(invalid URL)';
  }
}
