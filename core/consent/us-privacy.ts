/**
 * The US opt-outs of sale and sharing (docs/delivery.md, "Consent"): the IAB US Privacy string
 * (`1YYN`: version, notice given, opted out of sale, covered by the LSPA) and the IAB GPP string's
 * US sections (the national `usnat` and each state's, read with IAB Tech Lab's `@iabgpp/cmpapi`),
 * whose `SaleOptOut`, `SharingOptOut` and `TargetedAdvertisingOptOut` are 1 when the person opted
 * out. A GPP string may carry the TCF EU string too (`tcfeuv2`), which is handed back for the TCF
 * check.
 */
import { GppModel, Sections } from '@iabgpp/cmpapi';
import { BitReader, ConsentStringError } from './bits.ts';

/** Whether a US Privacy string says the person opted out of the sale of their data. */
export function uspOptedOut(usPrivacy: string): boolean {
  return usPrivacy.charAt(2).toUpperCase() === 'Y';
}

/** What a GPP string says: the opt-out that decided (a section and field), and its TCF string. */
export type GppReading =
  | { readonly ok: true; readonly optOut?: string; readonly tcf?: string }
  | { readonly ok: false; readonly why: string };

/** Section ids that are not US ones: TCF EU v2 (2), TCF Canada (5), the US Privacy section (6, read below). */
const NOT_US = new Set([2, 5]);
const OPT_OUT_FIELDS = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'] as const;
const TCF_EU = 2;
const USP_V1 = 6;

/** The longest GPP string read (the event schema's limit for `consent.gpp`); longer is malformed. */
export const GPP_MAX_LENGTH = 16384;
/** The most sections a GPP string may carry (the registry has a few dozen); more is malformed. */
const MAX_SECTIONS = 64;
/** A Fibonacci-coded number of more bits than this (a section id offset above ~3.5 million) is malformed. */
const MAX_FIBONACCI_BITS = 32;
/**
 * The longest US section read, in characters: the largest (usnat version 2 with its GPC
 * subsection) is a few dozen; a longer one is malformed before the library decodes it, so a
 * 16 KB section costs a length check, not the library's decoding (11.7 ms; the budget is 5 ms).
 */
const MAX_US_SECTION = 256;
/** The versions the US sections have had (usnat 1 and 2; the states' 1). */
const US_VERSIONS = new Set([1, 2]);
/** Fields of a US section that are not two-bit notices, opt-outs, consents or MSPA modes. */
const NOT_TWO_BIT = new Set(['Version', 'GpcSegmentType', 'GpcSegmentIncluded', 'Gpc']);

const readings = new Map<string, GppReading>();
const KEPT = 256;

/**
 * Reads a GPP string, looking only at the sections `gpp_sid` names when it is given (the ones in
 * force for the page); a string that cannot be decoded, or is over budget, is a reading that
 * says why.
 */
export function readGpp(gpp: string, sid: string | undefined): GppReading {
  const key = `${sid ?? ''}|${gpp}`;
  const known = readings.get(key);
  if (known !== undefined) return known;
  const reading = decode(gpp, sid);
  if (readings.size >= KEPT) readings.clear();
  readings.set(key, reading);
  return reading;
}

/**
 * The section ids of a GPP header (Type 3, Version 1, then the ids as a Fibonacci-coded range),
 * read here rather than by the library, which expands a range before counting it: a header of a
 * few characters could name millions of sections. Expanding stops at `most` ids.
 */
export function gppSectionIds(header: string, most: number): number[] {
  const bits = new BitReader(header);
  if (bits.int(6) !== 3) throw new ConsentStringError('not a GPP header (type is not 3)');
  if (bits.int(6) !== 1) throw new ConsentStringError('GPP header version is not 1');
  const ids: number[] = [];
  let last = 0;
  const entries = bits.int(12);
  for (let i = 0; i < entries; i++) {
    const isRange = bits.bool();
    const first = last + fibonacci(bits);
    last = isRange ? first + fibonacci(bits) : first;
    if (ids.length + (last - first + 1) > most)
      throw new ConsentStringError(`the header names more sections than the ${most} the string carries`);
    for (let id = first; id <= last; id++) ids.push(id);
  }
  return ids;
}

/** A Fibonacci-coded positive integer: 1, 2, 3, 5, 8… summed for each 1 bit, ended by "11". */
function fibonacci(bits: BitReader): number {
  let value = 0;
  let [current, next] = [1, 2];
  let previous = false;
  for (let i = 0; i < MAX_FIBONACCI_BITS; i++) {
    const bit = bits.bool();
    if (bit && previous) return value;
    if (bit) value += current;
    previous = bit;
    [current, next] = [next, current + next];
  }
  throw new ConsentStringError('a Fibonacci-coded number too long');
}

function decode(raw: string, sid: string | undefined): GppReading {
  if (raw.length > GPP_MAX_LENGTH)
    return { ok: false, why: `longer than ${GPP_MAX_LENGTH} characters (${raw.length})` };
  try {
    const parts = raw.trim().split('~', MAX_SECTIONS + 2);
    if (parts.length > MAX_SECTIONS + 1) return { ok: false, why: `more than ${MAX_SECTIONS} sections` };
    const present = gppSectionIds(parts[0] ?? '', parts.length - 1);
    if (present.length !== parts.length - 1)
      return { ok: false, why: 'the header and the sections disagree on how many there are' };
    const section = (id: number): string => parts[present.indexOf(id) + 1] as string;
    const wanted = sid === undefined ? undefined : new Set(sid.split(/[,_]/).map(Number));
    const inForce = wanted === undefined ? present : present.filter((id) => wanted.has(id));
    const model = new GppModel();
    let optOut: string | undefined;
    for (const id of inForce) {
      if (NOT_US.has(id)) continue;
      const name = Sections.SECTION_ID_NAME_MAP.get(id);
      // A section this library does not know says nothing we could read.
      if (name === undefined) continue;
      // Each US section is small and of fixed fields: the library decodes it alone.
      const text = section(id);
      if (text.length > MAX_US_SECTION)
        return {
          ok: false,
          why: `the ${name} section is ${text.length} characters, more than any ${name} string (${MAX_US_SECTION})`,
        };
      model.decodeSection(name, text);
      const bad = id === USP_V1 ? undefined : usSectionProblem(model, name);
      if (bad) return { ok: false, why: bad };
      optOut = sectionOptOut(model, id, name);
      if (optOut !== undefined) break;
    }
    const tcf = inForce.includes(TCF_EU) ? section(TCF_EU) : undefined;
    return { ok: true, ...(optOut ? { optOut } : {}), ...(tcf ? { tcf } : {}) };
  } catch (err) {
    return { ok: false, why: (err as Error).message.slice(0, 120) || 'undecodable' };
  }
}

/**
 * Why a decoded US section is not one a CMP wrote, or undefined: its version is one the format
 * has had, and each notice, opt-out, consent and MSPA field holds 0, 1 or 2 (3 means nothing).
 * Base64 noise decodes into fields too; this is what tells it apart (a random section passes
 * both by chance about once in a thousand), so noise reads as malformed, not as "no opt-out".
 */
function usSectionProblem(model: GppModel, name: string): string | undefined {
  const version = model.getFieldValue(name, 'Version');
  if (typeof version !== 'number' || !US_VERSIONS.has(version))
    return `the ${name} section's version (${String(version)}) is not one the format has`;
  const fields = model.getSection(name) as Record<string, unknown> | null;
  for (const [field, value] of Object.entries(fields ?? {})) {
    if (NOT_TWO_BIT.has(field)) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'number' && (v < 0 || v > 2)))
      return `the ${name} section's ${field} holds a value no CMP writes`;
  }
  return undefined;
}

/** The opt-out a decoded US section states, named by section and field. */
function sectionOptOut(model: GppModel, id: number, name: string): string | undefined {
  if (id === USP_V1) return model.getFieldValue(name, 'OptOutSale') === 'Y' ? 'uspv1 OptOutSale' : undefined;
  for (const field of OPT_OUT_FIELDS)
    if (model.hasField(name, field) && model.getFieldValue(name, field) === 1) return `${name} ${field}`;
  return undefined;
}
