/**
 * The secrets the gateway reads from its environment on Google Cloud, and when the settings need
 * them (docs/browser.md#secrets-on-google-cloud): the edge secret an edge proxy in front of
 * `gateway.origin_path` proves itself with (`EVENTBUS_EDGE_SECRET`, gateway/runtime.ts viaEdge),
 * and the base of cookieless pages' daily salts (`EVENTBUS_SESSION_SALT`, gateway/session-key.ts).
 * One list read by the program (infra/secrets.ts declares them), the stack config (infra/config.ts
 * refuses a missing value) and the access table (core/access/needs.ts).
 */
import type { Settings } from '../../schemas/settings.ts';
import { ENV } from '../runtime-config.ts';

export interface GatewaySecret {
  /** The environment variable the gateway reads (core/runtime-config.ts ENV). */
  readonly env: string;
  /** The Secret Manager secret's id. */
  readonly secretId: string;
  /** The stack config key holding the value (`pulumi config set --secret <key>`). */
  readonly configKey: string;
  /** Why the settings need it, for the refusal and the docs. */
  readonly why: string;
}

export const EDGE_SECRET: GatewaySecret = Object.freeze({
  env: ENV.edgeSecret,
  secretId: 'eventbus-edge-secret',
  configKey: 'edgeSecret',
  why: 'gateway.origin_via is cloudflare or akamai: the Worker or rule in front of gateway.origin_path proves itself with it',
});

export const SESSION_SALT: GatewaySecret = Object.freeze({
  env: ENV.sessionSalt,
  secretId: 'eventbus-session-salt',
  configKey: 'sessionSalt',
  why: "browsers send to the gateway (producers.origins, gateway.domain or gateway.origin_path): a cookieless page's session keys must agree across instances",
});

/**
 * The gateway's secrets the settings need. The edge secret: with `gateway.origin_path` routed by a
 * Cloudflare Worker or an Akamai rule (`origin_via`), the proxies the gateway knows by the secret
 * alone; the site's Google load balancer (the default) is known by the site's host instead
 * (gateway/runtime.ts, viaLoadBalancer). The session salt: wherever the settings let browsers send
 * (`producers.origins`, `gateway.domain`, `gateway.origin_path`), since a page chooses cookieless
 * on its tag, not in the settings.
 */
export function gatewaySecrets(settings: Readonly<Settings>): readonly GatewaySecret[] {
  const g = settings.gateway;
  const browsers = (settings.producers?.origins?.length ?? 0) > 0 || !!g?.domain || !!g?.origin_path;
  const edge = !!g?.origin_path && (g.origin_via ?? 'load_balancer') !== 'load_balancer';
  return [...(edge ? [EDGE_SECRET] : []), ...(browsers ? [SESSION_SALT] : [])];
}

/** The refusal for needed values the stack config lacks, naming the command; undefined when none. */
export function missingGatewaySecrets(
  needed: readonly GatewaySecret[],
  has: (configKey: string) => boolean,
): string | undefined {
  const missing = needed.filter((s) => !has(s.configKey));
  if (missing.length === 0) return undefined;
  return missing
    .map(
      (s) =>
        `missing stack config ${s.configKey} (${s.env} on the gateway; ${s.why}): set it once with ` +
        `\`pulumi config set --secret ${s.configKey} "$(openssl rand -base64 32)"\``,
    )
    .join('\n');
}
