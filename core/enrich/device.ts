/**
 * Device and bot flag from the user agent (docs/enrichment.md, "Device"): browser, version, OS
 * and device type by ua-parser-js 1.x (MIT), crawlers by isbot's maintained pattern list
 * (Unlicense). Both are pure functions of the string; results are kept in a bounded map because
 * a site's traffic repeats a few hundred user agents, and parsing one costs tens of µs.
 */
import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';
import type { Enriched } from '../../schemas/context.ts';

type EnrichedDevice = NonNullable<Enriched['device']>;

/** What one user agent gives. */
export interface UserAgentFacts {
  readonly device?: EnrichedDevice;
  readonly bot: boolean;
}

/** Bounded: cleared when full, so memory stays small and the result never depends on it. */
const CACHE_SIZE = 2048;
const cache = new Map<string, UserAgentFacts>();

/**
 * ua-parser-js leaves the type empty for desktops (it names only the other kinds): a parsed
 * browser on a known desktop OS is a desktop.
 */
const DESKTOP_OS = new Set([
  'Windows',
  'Mac OS',
  'macOS',
  'Linux',
  'Ubuntu',
  'Chromium OS',
  'Fedora',
  'Debian',
]);

/**
 * A program's own user agent: one product token, optionally with a version, and no comment
 * (`curl/8.4.0`, `node`, `python-requests/2.31`, `Go-http-client/1.1`). isbot counts these as bots;
 * here they are not, unless the token names a crawler: a backend that sends events without the
 * person's user agent gets its HTTP client's filled in by the gateway (producers.collect_user_agent),
 * and its purchases must still reach the platforms (docs/enrichment.md, "Bots").
 */
const PROGRAM = /^[\w.-]+(?:\/[\w.-]+)?$/;
const NAMES_A_CRAWLER = /bot|crawl|spider|slurp/i;

/** Whether a user agent is a crawler or bot by isbot's list, programs' own user agents aside. */
export function isBot(ua: string): boolean {
  if (PROGRAM.test(ua)) return NAMES_A_CRAWLER.test(ua);
  return isbot(ua);
}

function parse(ua: string): UserAgentFacts {
  const parser = new UAParser(ua);
  const browser = parser.getBrowser();
  const os = parser.getOS();
  const type = parser.getDevice().type ?? (os.name && DESKTOP_OS.has(os.name) ? 'desktop' : undefined);
  const device: { -readonly [K in keyof EnrichedDevice]: EnrichedDevice[K] } = {};
  if (browser.name) device.browser = browser.name;
  if (browser.version) device.browser_version = browser.version;
  if (os.name) device.os = os.name;
  if (os.version) device.os_version = os.version;
  if (type) device.type = type;
  return { ...(Object.keys(device).length > 0 ? { device } : {}), bot: isBot(ua) };
}

/** The device and bot flag of a user agent. */
export function userAgentFacts(ua: string): UserAgentFacts {
  const known = cache.get(ua);
  if (known) return known;
  const facts = parse(ua);
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(ua, facts);
  return facts;
}
