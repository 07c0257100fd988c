/**
 * The session key of a cookieless page (docs/browser.md, "Cookieless"): no id is stored in the
 * browser, so the gateway fills each event's `session_id` with a keyed hash of the visitor's
 * address, user agent and site, under a salt of the day. The same visitor on the same site gets
 * the same key all day (UTC), and another from midnight on; the address and user agent are
 * never stored for it, and the key alone gives neither back.
 *
 * The day's salt is HMAC-SHA256 of the day (`2026-11-25`) under a base secret the gateway reads
 * (`EVENTBUS_SESSION_SALT`); without one, a random base for the process, so each instance and
 * each restart has its own keys. Whoever holds the base can recompute a past day's key from an
 * address, user agent and site: unlike a salt thrown away at midnight, this one can be rebuilt.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** A function from (now, address, user agent, site) to the session key. */
export type SessionKeys = (now: number, ip: string, userAgent: string, site: string) => string;

/** Session keys under `base` (undefined: a random base for this process). */
export function sessionKeys(base: string | undefined): SessionKeys {
  const secret = base ? Buffer.from(base) : randomBytes(32);
  let day = '';
  let salt = Buffer.alloc(0);
  return (now, ip, userAgent, site) => {
    const today = new Date(now).toISOString().slice(0, 10);
    if (today !== day) {
      day = today;
      salt = createHmac('sha256', secret).update(today).digest();
    }
    const mac = createHmac('sha256', salt).update(`${ip}\n${userAgent}\n${site}`).digest('base64url');
    return `ckl_${mac.slice(0, 22)}`;
  };
}
