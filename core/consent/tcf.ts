/**
 * The IAB TCF v2 TC string (docs/delivery.md, "Consent"): the purposes the person consented to,
 * the vendors they consented to, and — where the string carries it (TCF v2.3 makes it mandatory)
 * — the vendors the CMP disclosed. No Global Vendor List is needed, and none is fetched.
 *
 * Decoded here within a budget rather than with a general decoder: a vendor range is kept as its
 * two ends and never expanded into ids (a 15 KB string of ranges over 1..65535 took seconds to
 * expand), so decoding costs time and memory linear in the string's length, and a lookup costs
 * at most the section's entries. Only the parts the decision layer reads are decoded: the core
 * segment up to its vendor consents, and the disclosed-vendors segment. Layout: IAB Tech Lab's
 * "TCF v2 Consent string and vendor list formats".
 */
import { BitReader, ConsentStringError } from './bits.ts';

/** What a TC string says, or why it could not be read. */
export type TcfReading =
  | {
      readonly ok: true;
      /** Whether the person consented to a TCF purpose (1 = store and/or access information on a device). */
      readonly purpose: (id: number) => boolean;
      /** Whether the person consented to a vendor (by its Global Vendor List id). */
      readonly vendor: (id: number) => boolean;
      /** Whether the CMP disclosed a vendor; undefined when the string has no disclosed-vendors segment. */
      readonly disclosed: (id: number) => boolean | undefined;
      /** The decoding's work so far (characters read, range entries read and visited): for tests. */
      readonly work: () => number;
    }
  | { readonly ok: false; readonly why: string };

/** The longest TC string read (the event schema's limit for `consent.tcf`); longer is malformed. */
export const TCF_MAX_LENGTH = 16384;
/** Segments after the core one that are looked at (the format has at most three kinds). */
const MAX_SEGMENTS = 4;

/** Bit offsets of the core segment (TCF v2). */
const PURPOSES_AT = 152;
const VENDOR_SECTION_AT = 213;
const DISCLOSED_VENDORS = 1;

/** One request's events carry the same string: decoded once per process, a few hundred kept. */
const readings = new Map<string, TcfReading>();
const KEPT = 256;

/** Reads a TC string; a malformed one, a TCF v1 one or one over budget is a reading that says why. */
export function readTcf(tcString: string): TcfReading {
  const known = readings.get(tcString);
  if (known !== undefined) return known;
  const reading = decodeTcf(tcString);
  if (readings.size >= KEPT) readings.clear();
  readings.set(tcString, reading);
  return reading;
}

/** A vendor section: a bitfield over 1..maxId, or ranges kept as pairs of ends. */
interface VendorSection {
  has(id: number): boolean;
}

/** Decodes a TC string without the cache (readTcf keeps what it decoded; benches measure this). */
export function decodeTcf(raw: string): TcfReading {
  if (raw.length > TCF_MAX_LENGTH)
    return { ok: false, why: `longer than ${TCF_MAX_LENGTH} characters (${raw.length})` };
  try {
    const segments = raw.trim().split('.', MAX_SEGMENTS + 1);
    const counter = { work: 0 };
    const core = new BitReader(segments[0] ?? '');
    counter.work += (segments[0] ?? '').length;
    const version = core.int(6);
    if (version !== 2) return { ok: false, why: `TC string version ${version}, not 2` };
    core.pos = PURPOSES_AT;
    const purposes = core.int(24);
    core.pos = VENDOR_SECTION_AT;
    const vendors = vendorSection(core, counter);
    let disclosed: VendorSection | undefined;
    for (const segment of segments.slice(1, MAX_SEGMENTS + 1)) {
      counter.work += segment.length;
      const bits = new BitReader(segment);
      if (bits.int(3) === DISCLOSED_VENDORS) disclosed = vendorSection(bits, counter);
    }
    return {
      ok: true,
      // Purpose 1 is the first (most significant) of the 24 bits.
      purpose: (id) => id >= 1 && id <= 24 && Math.floor(purposes / 2 ** (24 - id)) % 2 === 1,
      vendor: (id) => vendors.has(id),
      disclosed: (id) => disclosed?.has(id),
      work: () => counter.work,
    };
  } catch (err) {
    if (err instanceof ConsentStringError) return { ok: false, why: err.message };
    throw err;
  }
}

/**
 * A vendor section at the cursor: MaxVendorId (16 bits), IsRangeEncoding (1), then a bitfield of
 * MaxVendorId bits, or NumEntries (12) entries of IsARange (1), a vendor id (16) and, for a
 * range, its end (16). The cursor ends after it. A section of more entries than its bits could
 * hold ends too early and is malformed, so the entries are bounded by the string's length.
 */
function vendorSection(bits: BitReader, counter: { work: number }): VendorSection {
  const maxId = bits.int(16);
  if (!bits.bool()) {
    const start = bits.pos;
    bits.skip(maxId);
    return { has: (id) => id >= 1 && id <= maxId && bits.bitAt(start + id - 1) };
  }
  const entries = bits.int(12);
  const ends = new Uint16Array(entries * 2);
  for (let i = 0; i < entries; i++) {
    const isRange = bits.bool();
    const first = bits.int(16);
    const last = isRange ? bits.int(16) : first;
    ends[2 * i] = first;
    ends[2 * i + 1] = last;
  }
  counter.work += entries;
  return {
    has: (id) => {
      if (id < 1 || id > maxId) return false;
      for (let i = 0; i < entries; i++) {
        counter.work++;
        if ((ends[2 * i] as number) <= id && id <= (ends[2 * i + 1] as number)) return true;
      }
      return false;
    },
  };
}
