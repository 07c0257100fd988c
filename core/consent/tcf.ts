/**
 * The IAB TCF v2 TC string, decoded with IAB Tech Lab's `@iabtcf/core` (docs/delivery.md,
 * "Consent"): the purposes the person consented to, the vendors they consented to, and — where
 * the string carries it (TCF v2.3 makes it mandatory) — the vendors the CMP disclosed. No Global
 * Vendor List is needed to decode, and none is fetched.
 */
import { TCString } from '@iabtcf/core';

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
    }
  | { readonly ok: false; readonly why: string };

/** One request's events carry the same string: decoded once per process, a few hundred kept. */
const readings = new Map<string, TcfReading>();
const KEPT = 256;

/** Reads a TC string; a malformed one (or a TCF v1 string) is a reading that says why. */
export function readTcf(tcString: string): TcfReading {
  const known = readings.get(tcString);
  if (known !== undefined) return known;
  const reading = decode(tcString);
  if (readings.size >= KEPT) readings.clear();
  readings.set(tcString, reading);
  return reading;
}

function decode(tcString: string): TcfReading {
  try {
    const model = TCString.decode(tcString.trim());
    if (model.version !== 2) return { ok: false, why: `TC string version ${model.version}, not 2` };
    // The disclosed-vendors segment is absent from strings that do not carry it: an empty vector.
    const hasDisclosed = model.vendorsDisclosed.maxId > 0;
    return {
      ok: true,
      purpose: (id) => model.purposeConsents.has(id),
      vendor: (id) => model.vendorConsents.has(id),
      disclosed: (id) => (hasDisclosed ? model.vendorsDisclosed.has(id) : undefined),
    };
  } catch (err) {
    return { ok: false, why: (err as Error).message.slice(0, 120) || 'undecodable' };
  }
}
