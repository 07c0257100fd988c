/**
 * Signed webhooks: what a destination of this type needs to work (config keys, secret roles, a URL,
 * a test code in test mode) and the consent purposes it requires by default.
 * A webhook is the business's own endpoint: no consent purpose by default. Webhooks are always
 * signed (HMAC-SHA256 with the shared signing_key).
 */
import type { PlatformRules } from '../driver.ts';

export const WEBHOOK_RULES: PlatformRules = {
  requirements: {
    config: [],
    optionalConfig: ['path'],
    secrets: ['signing_key'],
    baseUrl: true,
    testEventCode: false,
  },
  consent: [],
};
