/**
 * Device facts from User-Agent Client Hints (docs/enrichment.md, "Client hints"): the
 * `Sec-CH-UA*` headers the gateway carried in device.client_hints. Chromium freezes most of its
 * user agent (the minor version reads 0.0.0, Windows 11 says "Windows NT 10.0", Android's model
 * says "K"), and its hints say what the user agent no longer does, so they win where they are
 * more precise. ua-parser-js 1.x has no client-hints API (2.x, AGPL, has one), so the brand lists
 * are read here: they are RFC 8941 structured-field lists of strings with a `v` parameter.
 */
import type { ClientHints, Enriched } from '../../schemas/context.ts';

type EnrichedDevice = NonNullable<Enriched['device']>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One brand of a brand list and its version. */
export interface Brand {
  readonly brand: string;
  readonly version: string;
}

/**
 * The items of a structured-field list of strings with parameters (`"Chromium";v="124", …`),
 * keeping each string and its `v` parameter. A quoted string may hold `;` and `,` (Chromium's
 * GREASE brands do), so the value is scanned rather than split. An item that is not a string
 * is skipped; a malformed list gives the items read before the fault.
 */
export function parseBrandList(header: string): Brand[] {
  const out: Brand[] = [];
  let i = 0;
  const n = header.length;
  const skipSpaces = () => {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  const quoted = (): string | undefined => {
    if (header[i] !== '"') return undefined;
    let s = '';
    for (i++; i < n; i++) {
      const c = header[i] as string;
      if (c === '\\' && i + 1 < n) s += header[++i];
      else if (c === '"') {
        i++;
        return s;
      } else s += c;
    }
    return undefined; // unterminated
  };
  // A token, a parameter's key or a bare value: up to the next delimiter.
  const bare = (): string => {
    const start = i;
    while (i < n && !';,= \t"'.includes(header[i] as string)) i++;
    return header.slice(start, i);
  };
  const value = (): string | undefined => (header[i] === '"' ? quoted() : bare());
  while (i < n) {
    skipSpaces();
    const isString = header[i] === '"';
    const item = value();
    if (item === undefined) return out;
    let version = '';
    while (i < n && header[i] === ';') {
      i++;
      skipSpaces();
      const key = bare();
      let param: string | undefined = '';
      if (header[i] === '=') {
        i++;
        param = value();
      }
      if (param === undefined) return out;
      if (key === 'v') version = param;
    }
    if (isString) out.push({ brand: item, version });
    skipSpaces();
    if (i < n && header[i] !== ',') return out;
    i++;
  }
  return out;
}

/**
 * Chromium's GREASE brands: "Not" and "A" and "Brand" joined by arbitrary punctuation
 * (`Not-A.Brand`, ` Not A;Brand`, `Not(A:Brand`, `Not/A)Brand`), in any position, meant to be
 * ignored.
 */
const GREASE = /^\s*Not[^A-Za-z0-9]*A[^A-Za-z0-9]*Brand\s*$/i;

/** Brands named differently in the hints than by ua-parser-js: the parser's names are kept. */
const BRAND_NAMES: Readonly<Record<string, string>> = {
  'Google Chrome': 'Chrome',
  'Microsoft Edge': 'Edge',
  'Android WebView': 'Chrome WebView',
  'Opera GX': 'Opera GX',
};

/** Platforms named differently in Sec-CH-UA-Platform than by ua-parser-js 1.x. */
const PLATFORM_NAMES: Readonly<Record<string, string>> = {
  macOS: 'Mac OS',
  'Chrome OS': 'Chromium OS',
};

const DESKTOP_PLATFORMS = new Set(['Windows', 'macOS', 'Linux', 'Chrome OS', 'Chromium OS']);

/** The browser a brand list names: the first real brand other than the engine's, else Chromium. */
function browserOf(brands: readonly Brand[]): Brand | undefined {
  const real = brands.filter((b) => b.brand !== '' && !GREASE.test(b.brand));
  return real.find((b) => b.brand !== 'Chromium') ?? real[0];
}

/** An sf-string's value (`"Windows"` → `Windows`), or undefined when empty or not a string. */
function sfString(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const [first] = parseBrandList(value);
  return first?.brand ? first.brand : undefined;
}

/**
 * Windows reports its platform version as the Windows.Foundation contract's (Microsoft's
 * "Detect Windows 11 using User-Agent Client Hints"): 13 and above is Windows 11, 1 to 10 is
 * Windows 10; 0.x (Windows 7, 8, 8.1) is left to the user agent.
 */
function windowsVersion(platformVersion: string): string | undefined {
  const major = Number.parseInt(platformVersion, 10);
  if (major >= 13) return '11';
  if (major >= 1) return '10';
  return undefined;
}

/**
 * The device from the user agent, with what the client hints say more precisely put over it:
 * browser (brand) and its full version, OS and its version, mobile → device type, and the model.
 */
export function withClientHints(
  fromUa: EnrichedDevice | undefined,
  hints: ClientHints,
): EnrichedDevice | undefined {
  const device: Mutable<EnrichedDevice> = { ...fromUa };
  const full = hints.full_version_list ? browserOf(parseBrandList(hints.full_version_list)) : undefined;
  const significant = hints.ua ? browserOf(parseBrandList(hints.ua)) : undefined;
  const chosen = full ?? significant;
  if (chosen) {
    const name = BRAND_NAMES[chosen.brand] ?? chosen.brand;
    // The full version wins; a significant version only replaces another browser's version
    // (the same browser's user agent says at least as much).
    const version = full?.version || (name !== device.browser ? chosen.version : device.browser_version);
    device.browser = name;
    if (version) device.browser_version = version;
    else delete device.browser_version;
  }
  const platform = sfString(hints.platform);
  if (platform && platform !== 'Unknown') {
    const os = PLATFORM_NAMES[platform] ?? platform;
    if (os !== device.os) delete device.os_version;
    device.os = os;
    const version = sfString(hints.platform_version);
    if (version) {
      const shown = platform === 'Windows' ? windowsVersion(version) : version;
      if (shown) device.os_version = shown;
    }
  }
  if (hints.mobile === '?1') device.type = 'mobile';
  else if (hints.mobile === '?0' && platform && DESKTOP_PLATFORMS.has(platform)) device.type = 'desktop';
  const model = sfString(hints.model);
  if (model) device.model = model;
  return Object.keys(device).length > 0 ? device : undefined;
}
