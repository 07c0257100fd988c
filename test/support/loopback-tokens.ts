/**
 * Google OAuth token sources for tests whose stand-ins listen on loopback ports chosen at start:
 * every origin on 127.0.0.1 is on the allow-list, as the supervisor lists its receiver, so the
 * stand-in's token endpoint is taken and the refresh goes through the egress gate.
 */
import { type AccessTokens, createAccessTokens, tokenEgress } from '../../adapters/google-oauth.ts';
import type { AllowList } from '../../core/egress/policy.ts';

/** Any http origin on 127.0.0.1, whatever its port. */
class LoopbackOrigins extends Set<string> {
  override has(origin: string): boolean {
    return /^http:\/\/127\.0\.0\.1:\d+$/.test(origin);
  }
}

/** The allow-list of loopback stand-ins. */
export const LOOPBACK_ALLOW: AllowList = new LoopbackOrigins();

/** A token source as a function builds it, with loopback stand-ins allowed. */
export function loopbackTokens(): AccessTokens {
  return createAccessTokens(tokenEgress(LOOPBACK_ALLOW, 'test'));
}
