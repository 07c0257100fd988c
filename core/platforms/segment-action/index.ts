/**
 * Segment's Action Destinations (issue #65; docs/catalog-destinations.md): the platform value the
 * tables derive from — requirements, default consent, the settings type. Its requests are made by
 * Segment's actions themselves, in the `forward-catalog` function (driver.ts there adds `perform`);
 * this value stays light (no actions-core, no catalogue) because every function loads the table.
 * `forward` itself never gets a segment_action delivery: the plan pushes those to forward-catalog.
 */
import type { Prepared } from '../driver.ts';
import { definePlatform, type Platform } from '../platform.ts';
import type { ResponseTable } from '../responses.ts';
import { SEGMENT_ACTION_FACTS } from './facts.ts';
import { isRetryableStatus } from './outcome.ts';

/** Answers are read by the runtime (outcome.ts); this table only serves the shared shape. */
const RESPONSES: ResponseTable = {
  network: (message) => message,
  retryStatus: isRetryableStatus,
  retried: (status) => `HTTP ${status}`,
  refused: (status) => `HTTP ${status}`,
};

const NOT_HERE: Prepared = {
  ok: false,
  reason:
    'a segment_action destination is delivered by the forward-catalog function (its deliveries subscription pushes there), not by forward',
};

export const SEGMENT_ACTION_PLATFORM: Platform = definePlatform({
  ...SEGMENT_ACTION_FACTS,
  requirements: {
    // The destination's own settings keys, checked against its catalogue entry (check.ts).
    config: [],
    optionalConfig: [],
    openConfig: true,
    secrets: [],
    baseUrl: false,
    testEventCode: false,
    noTestMode:
      'Segment actions have no test mode of ours: point base_url at a capturing stand-in (docs/catalog-destinations.md)',
  },
  payload: { kind: 'stored', prepare: () => NOT_HERE },
  responses: RESPONSES,
});
