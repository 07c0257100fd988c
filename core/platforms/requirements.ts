/**
 * Each destination type's requirements and default consent, derived from the table of
 * platforms (platforms.ts): the settings check, plan(), the decision layer and the drivers share
 * these, so a platform's needs are written once, in its folder.
 */
import type { ConsentPurpose, DestinationType } from '../../schemas/settings.ts';
import type { DestinationRequirements } from './driver.ts';
import { everyPlatform } from './platforms.ts';

/** Per destination type: what its driver cannot work without. */
export const DESTINATION_REQUIREMENTS: Readonly<Record<DestinationType, DestinationRequirements>> =
  everyPlatform((p) => p.requirements);

/** The consent purposes each destination type needs unless its settings say otherwise. */
export const DEFAULT_CONSENT: Readonly<Record<DestinationType, readonly ConsentPurpose[]>> = everyPlatform(
  (p) => p.consent,
);

/** Per destination type: its vendor id on the IAB TCF Global Vendor List, where one is confirmed. */
export const TCF_VENDORS: Readonly<Record<DestinationType, number | undefined>> = everyPlatform(
  (p) => p.tcfVendor,
);

/** Per destination type: the event fields one of which it needs (PlatformSpec.identity), if any. */
export const IDENTITY_NEEDS: Readonly<
  Record<DestinationType, { readonly anyOf: readonly string[]; readonly reason: string } | undefined>
> = everyPlatform((p) => p.identity);
