/**
 * A `segment_action` destination's API version is whatever the installed Segment action sends
 * (Klaviyo's `revision` header, HubSpot's paths): pinned by the @segment/action-destinations
 * version in package.json, not by a value of ours (docs/catalog-destinations.md).
 */
import type { ApiVersion } from '../platform.ts';

export const SEGMENT_ACTION_API = Object.freeze({
  version: null,
  carrier: 'none',
  sunset: null,
  source: 'docs/catalog-destinations.md',
} as const satisfies ApiVersion);
