/**
 * The platform table of docs/platforms.md, written from `PLATFORMS` (core/platforms/platforms.ts):
 * one row per destination type with what its `Platform` value says (requirements, default
 * consent, payload, batch size, audiences), and the API version table (each platform's declared
 * version and its sunset). Also the platforms' names as prose uses them, which the docs test uses
 * to find sentences that list platforms by hand.
 */
import { PLATFORM_LIST } from '../core/platforms/platforms.ts';
import type { DestinationType } from '../schemas/settings.ts';

/**
 * How the docs name each platform: `short` is the word prose uses, `heading` starts its section
 * in docs/platforms.md. Keyed by destination type, read from each platform's value (its
 * folder's `index.ts` writes its `names`).
 */
export const PLATFORM_NAMES: Readonly<Record<DestinationType, { short: string; heading: string }>> =
  Object.fromEntries(PLATFORM_LIST.map((p) => [p.type, p.names])) as Record<
    DestinationType,
    { short: string; heading: string }
  >;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

const code = (items: readonly string[]): string =>
  items.length ? items.map((i) => `\`${i}\``).join(', ') : '—';

/**
 * The table's markdown. `platformsDoc` is docs/platforms.md's text: each platform links to its
 * numbered section there, and a platform without one is an error (every platform has its section).
 */
export function platformTable(platformsDoc: string): string {
  const headings = [...platformsDoc.matchAll(/^## (\d+\. .+)$/gm)].map((m) => m[1] as string);
  const rows = PLATFORM_LIST.map((p) => {
    const name = PLATFORM_NAMES[p.type];
    const heading = headings.find((h) => h.replace(/^\d+\. /, '').startsWith(name.heading));
    if (!heading) throw new Error(`docs/platforms.md has no "## N. ${name.heading}…" section for ${p.type}`);
    const r = p.requirements;
    const payload =
      p.payload.kind === 'mapped' ? `mapped, ${p.payload.maxEvents} per request` : 'the stored event';
    return [
      `\`${p.type}\``,
      `[${name.heading}](#${anchorOf(heading)})`,
      payload,
      code(r.config),
      code(r.optionalConfig),
      code(r.secrets),
      code(p.consent),
      r.testEventCode ? 'yes' : 'no',
      p.audiences ? 'yes' : 'no',
    ];
  });
  const header = [
    'type',
    'platform',
    'payload',
    'required config',
    'optional config',
    'secrets',
    'default consent',
    'test code',
    'audiences',
  ];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** A declaration's source as a markdown link: a URL by its host, a page of docs/ by its name. */
function sourceLink(source: string): string {
  if (/^https?:\/\//.test(source)) return `[${new URL(source).host}](${source})`;
  const page = source.replace(/^docs\//, '');
  return `[${page}](${page})`;
}

/**
 * The API version table: each platform's declared version (core/platforms/<platform>/api-version.ts),
 * the day the platform retires it, and — in docs/platforms.md (`full`) — where it is carried, the
 * setting that sends another, and the page that says so. The README gets the short form.
 */
export function apiVersionTable(full: boolean): string {
  const rows = PLATFORM_LIST.map((p) => {
    const a = p.apiVersion;
    const version = a.version === null ? 'unversioned' : `\`${a.version}\``;
    const sunset = a.sunset ?? (a.version === null ? '—' : 'none published');
    const short = [PLATFORM_NAMES[p.type].short, version, sunset];
    if (!full) return short;
    const carrier = a.carrier === 'header' ? `header \`${a.header}\`` : a.carrier === 'path' ? 'path' : '—';
    return [
      `\`${p.type}\``,
      ...short.slice(1),
      carrier,
      a.override ? `\`config.${a.override}\`` : '—',
      sourceLink(a.source),
    ];
  });
  const header = full
    ? ['type', 'version', 'sunset', 'carried in', 'override', 'source']
    : ['platform', 'API version', 'sunset'];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/**
 * The facts table: what each platform's `facts.ts` declares that the gateway, enrichment and the
 * studio read (its TCF vendor, click ids, the cookies the gateway sets, the creator's step-3
 * control), and whether its erasure slot deletes a person, by which identifiers.
 */
export function factsTable(): string {
  const rows = PLATFORM_LIST.map((p) => {
    const cookies = (p.cookies ?? []).map(
      (c) =>
        `\`${c.name}\`${c.purposes.length ? ` (${c.purposes.join(', ')})` : ''}${c.withDestination ? ', with a destination' : ''}`,
    );
    const step3 = p.step3 ? `${p.step3.kind === 'events' ? 'standard event' : 'id'}: ${p.step3.label}` : '—';
    return [
      `\`${p.type}\``,
      p.tcfVendor === undefined ? '—' : String(p.tcfVendor),
      (p.clickIds ?? []).map((c) => `\`${c.param}\` (${c.channel.replace('_', ' ')})`).join(', ') || '—',
      cookies.join(', ') || '—',
      (p.pageCookies ?? []).map((c) => `\`${c.cookie}\``).join(', ') || '—',
      step3,
      p.erasure ? `by ${p.erasure.identifiers.join(', ')}` : '—',
    ];
  });
  const header = [
    'type',
    'TCF vendor',
    'click ids (channel)',
    'cookies the gateway sets (purposes)',
    'cookies the tag reads',
    'creator step 3',
    'erasure',
  ];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/**
 * The counts table (docs/delivery.md, "Sent, accepted, counted"): per platform, the reporting API
 * its own count of received events is read from (its facts.ts `counts`), or why none is, with the
 * public page that says so.
 */
export function countsTable(): string {
  const rows = PLATFORM_LIST.map((p) => {
    const c = p.counts;
    const link = c.doc.startsWith('http') ? sourceLink(c.doc) : `[${c.doc}](${c.doc.replace(/^docs\//, '')})`;
    return [`\`${p.type}\``, 'reads' in c ? c.reads : `— ${c.none}`, link];
  });
  const header = ['type', 'counted from', 'source'];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
