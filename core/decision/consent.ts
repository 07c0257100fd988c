/**
 * The decision layer's consent rule (docs/delivery.md, "Consent"), fail closed: the resolver
 * (core/consent/resolve.ts) weighs every signal of the event against what the destination needs
 * — its purposes (its settings' or its type's) and its TCF vendor, both declared on its platform
 * (core/platforms/<platform>/index.ts) — and the reason names the signal that decided.
 */
import type { ConsentPurpose, Destination } from '../../schemas/settings.ts';
import { consentRefusalOf } from '../consent/resolve.ts';
import type { StoredEvent } from '../event.ts';
import { TCF_VENDORS } from '../platforms/requirements.ts';

/**
 * Why the event may not go to the destination for consent, or undefined when it may. `required`
 * is the destination's consent list (its own or its type's); `honorGpc` is
 * `producers.honor_gpc` (default true).
 */
export function consentRefusal(
  destination: Readonly<Destination>,
  event: StoredEvent,
  required: readonly ConsentPurpose[],
  honorGpc: boolean,
): string | undefined {
  return consentRefusalOf(event, { purposes: required, tcfVendor: TCF_VENDORS[destination.type] }, honorGpc);
}
