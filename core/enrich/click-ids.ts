/**
 * The ad platforms' click ids: URL parameter (lower-cased: Snapchat writes `ScCid`) → the
 * `campaign` field it fills. Shared by the enrichment step (attribution.ts) and the first-party
 * tag (gateway/tag/context.ts), which bundles it for browsers: no imports here.
 */
export const CLICK_IDS = Object.freeze({
  gclid: 'gclid',
  gbraid: 'gbraid',
  wbraid: 'wbraid',
  fbclid: 'fbclid',
  ttclid: 'ttclid',
  msclkid: 'msclkid',
  sccid: 'sccid',
  epik: 'epik',
  li_fat_id: 'li_fat_id',
  rdt_cid: 'rdt_cid',
  twclid: 'twclid',
} as const);
