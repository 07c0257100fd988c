/**
 * The US opt-outs of sale and sharing (docs/delivery.md, "Consent"): the IAB US Privacy string
 * (`1YYN`: version, notice given, opted out of sale, covered by the LSPA) and the IAB GPP string's
 * US sections (the national `usnat` and each state's, read with IAB Tech Lab's `@iabgpp/cmpapi`),
 * whose `SaleOptOut`, `SharingOptOut` and `TargetedAdvertisingOptOut` are 1 when the person opted
 * out. A GPP string may carry the TCF EU string too (`tcfeuv2`), which is handed back for the TCF
 * check.
 */
import { GppModel, Sections } from '@iabgpp/cmpapi';

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

const readings = new Map<string, GppReading>();
const KEPT = 256;

/**
 * Reads a GPP string, looking only at the sections `gpp_sid` names when it is given (the ones in
 * force for the page); a string that cannot be decoded is a reading that says why.
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

function decode(gpp: string, sid: string | undefined): GppReading {
  try {
    const model = new GppModel(gpp.trim());
    const present = model.getSectionIds() as number[];
    const inForce =
      sid === undefined
        ? present
        : sid
            .split(/[,_]/)
            .map(Number)
            .filter((id) => present.includes(id));
    let optOut: string | undefined;
    for (const id of inForce) {
      if (NOT_US.has(id)) continue;
      if (id === USP_V1) {
        if (model.getFieldValueBySectionId(id, 'OptOutSale') === 'Y') optOut = 'uspv1 OptOutSale';
      } else {
        const name = Sections.SECTION_ID_NAME_MAP.get(id) ?? `section ${id}`;
        for (const field of OPT_OUT_FIELDS) {
          if (model.hasFieldBySectionId(id, field) && model.getFieldValueBySectionId(id, field) === 1) {
            optOut = `${name} ${field}`;
            break;
          }
        }
      }
      if (optOut !== undefined) break;
    }
    const tcf = inForce.includes(TCF_EU) ? model.encodeSectionById(TCF_EU) : undefined;
    return { ok: true, ...(optOut ? { optOut } : {}), ...(tcf ? { tcf } : {}) };
  } catch (err) {
    return { ok: false, why: (err as Error).message.slice(0, 120) || 'undecodable' };
  }
}
