/**
 * TC strings for tests, built with IAB Tech Lab's own encoder (`@iabtcf/core` TCString.encode):
 * encoding needs a Global Vendor List, so a minimal one is made here with the eleven TCF purposes
 * and the vendors a test names (ids as on the real list: Google 755, Microsoft 1126); nothing is
 * fetched. Provenance: the strings are whatever that encoder writes for the choices given.
 */
import { GVL, TCModel, TCString } from '@iabtcf/core';

export interface TcChoices {
  readonly purposes: readonly number[];
  readonly vendors: readonly number[];
  /**
   * The vendors the CMP disclosed (the disclosed-vendors segment, mandatory since TCF v2.3). The
   * encoder discloses every vendor of the list it encodes with, so this is that list; default
   * Google 755, Microsoft 1126 and Xandr 32.
   */
  readonly disclosed?: readonly number[];
  /** A service-specific string (GPP's tcfeuv2 section carries only those). */
  readonly serviceSpecific?: boolean;
}

const VENDOR_IDS = [755, 1126, 32];

function gvl(vendorIds: readonly number[]): GVL {
  const purposes: Record<string, unknown> = {};
  for (let id = 1; id <= 11; id++)
    purposes[id] = { id, name: `Purpose ${id}`, description: '', descriptionLegal: '', illustrations: [] };
  const vendors: Record<string, unknown> = {};
  for (const id of vendorIds)
    vendors[id] = {
      id,
      name: `Vendor ${id}`,
      purposes: [1, 2, 3, 4, 7],
      legIntPurposes: [],
      flexiblePurposes: [],
      specialPurposes: [],
      features: [],
      specialFeatures: [],
      policyUrl: 'https://example.com/privacy',
      cookieMaxAgeSeconds: null,
      usesCookies: true,
      cookieRefresh: false,
      usesNonCookieAccess: false,
    };
  // The constructor takes a vendor-list.json object; its declared type wants every GVL field.
  return new GVL({
    gvlSpecificationVersion: 3,
    vendorListVersion: 1,
    tcfPolicyVersion: 5,
    lastUpdated: '2026-01-01T00:00:00Z',
    purposes,
    specialPurposes: {},
    features: {},
    specialFeatures: {},
    stacks: {},
    dataCategories: {},
    vendors,
  } as unknown as ConstructorParameters<typeof GVL>[0]);
}

/** A TC string (TCF v2, with its disclosed-vendors segment) holding these choices. */
export function tcString(choices: TcChoices): string {
  const model = new TCModel(gvl(choices.disclosed ?? VENDOR_IDS));
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.isServiceSpecific = choices.serviceSpecific === true;
  model.purposeConsents.set([...choices.purposes]);
  model.vendorConsents.set([...choices.vendors]);
  return TCString.encode(model);
}

/** Bits written most significant first, then as URL-safe base64 (six bits a character). */
class BitWriter {
  private bits = '';
  int(value: number, n: number): this {
    this.bits += value.toString(2).padStart(n, '0');
    return this;
  }
  get size(): number {
    return this.bits.length;
  }
  base64(): string {
    return bitsToBase64(this.bits);
  }
}

/** Bits ('0' and '1', most significant first) as URL-safe base64, the last six padded with zeros. */
export function bitsToBase64(bits: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const padded = bits.padEnd(Math.ceil(bits.length / 6) * 6, '0');
  let out = '';
  for (let i = 0; i < padded.length; i += 6) out += alphabet[Number.parseInt(padded.slice(i, i + 6), 2)];
  return out;
}

/** A range entry's bits: IsARange, then 1..65535, the widest range the format can state. */
const WIDE_RANGE_BITS = 33;

/**
 * The costliest TC string the event schema allows (`consent.tcf`, up to 16,384 characters), for
 * the decoder's budget: a valid TCF v2 string, every purpose consented, whose vendor consents are
 * range entries each covering 1..65535 (as many as the format's 12-bit count and the length allow),
 * followed by a disclosed-vendors segment of the same kind filling the rest. A general decoder
 * expands each range into 65,535 ids; this one must not. `cmpId` tells strings apart (a cache
 * must not hide the cost).
 */
export function worstTcString(maxLength = 16384, cmpId = 10): string {
  const ranges = (w: BitWriter, entries: number) => {
    w.int(65535, 16).int(1, 1).int(entries, 12);
    for (let i = 0; i < entries; i++) w.int(1, 1).int(1, 16).int(65535, 16);
  };
  const entriesFitting = (budgetBits: number, fixed: number) =>
    Math.min(4095, Math.max(0, Math.floor((budgetBits - fixed) / WIDE_RANGE_BITS)));
  const core = new BitWriter()
    .int(2, 6)
    .int(0, 36)
    .int(0, 36)
    .int(cmpId, 12)
    .int(1, 12)
    .int(1, 6)
    .int(0, 12)
    .int(1, 12)
    .int(5, 6)
    .int(0, 1)
    .int(0, 1)
    .int(0, 12)
    .int(0xffffff, 24)
    .int(0, 24)
    .int(0, 1)
    .int(0, 12);
  // Half the characters for the core segment, the rest (after the dot) for the disclosed vendors.
  const half = Math.floor((maxLength - 1) / 2) * 6;
  ranges(core, entriesFitting(half - core.size - 29 - 12, 29));
  // No legitimate-interest vendors, no publisher restrictions.
  core.int(0, 16).int(0, 1).int(0, 12);
  const coreText = core.base64();
  const disclosed = new BitWriter().int(1, 3);
  ranges(disclosed, entriesFitting((maxLength - coreText.length - 1) * 6 - 3, 29));
  return `${coreText}.${disclosed.base64()}`;
}
