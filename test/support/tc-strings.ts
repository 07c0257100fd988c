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
