/**
 * Signed webhooks: the whole platform in one value (docs/delivery.md). The request and its
 * signature (driver.ts) and how a receiver's answers are read (responses.ts) are assembled
 * here; platforms.ts lists it. A webhook receives the stored event as it is: no mapping.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { webhookPrepare } from './driver.ts';
import { WEBHOOK_FACTS } from './facts.ts';
import { CURRENT_VERSION_KEY, PREVIOUS_UNTIL_KEY, PREVIOUS_VERSION_KEY, WEBHOOK_FORMATS } from './formats.ts';
import { WEBHOOK_RESPONSES } from './responses.ts';

const FORMAT_PATTERN = new RegExp(`^(${WEBHOOK_FORMATS.join('|')})$`);
/** A Secret Manager version number of the signing key's secret (never `latest`: a rotation names both). */
const VERSION_FORMAT = {
  pattern: /^[1-9][0-9]{0,9}$/,
  description: 'a version number of the secret, like 3',
};

export const WEBHOOK_PLATFORM: Platform = definePlatform({
  ...WEBHOOK_FACTS,
  requirements: {
    config: [],
    optionalConfig: ['path', 'format', PREVIOUS_UNTIL_KEY, CURRENT_VERSION_KEY, PREVIOUS_VERSION_KEY],
    configFormats: {
      format: { pattern: FORMAT_PATTERN, description: `one of ${WEBHOOK_FORMATS.join(', ')}` },
      [CURRENT_VERSION_KEY]: VERSION_FORMAT,
      [PREVIOUS_VERSION_KEY]: VERSION_FORMAT,
      [PREVIOUS_UNTIL_KEY]: {
        pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
        description: 'an RFC 3339 time with its offset (2026-12-01T00:00:00Z)',
      },
    },
    // Always signed (HMAC-SHA256 with the shared signing_key; docs/architecture.md §2).
    secrets: ['signing_key'],
    baseUrl: true,
    testEventCode: false,
  },
  payload: { kind: 'stored', prepare: webhookPrepare },
  responses: WEBHOOK_RESPONSES,
});

/** The driver the forward function uses for `webhook` destinations. */
export const webhookDriver = WEBHOOK_PLATFORM.driver;
