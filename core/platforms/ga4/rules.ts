/**
 * GA4 Measurement Protocol: what a destination of this type needs to work (config keys, secret roles, a URL,
 * a test code in test mode) and the consent purposes it requires by default.
 * Analytics only; GA4 test mode is its debug endpoint, so it needs no test code.
 */
import type { PlatformRules } from '../driver.ts';

export const GA4_RULES: PlatformRules = {
  requirements: {
    config: ['measurement_id'],
    optionalConfig: [],
    secrets: ['api_secret'],
    baseUrl: false,
    testEventCode: false,
  },
  consent: ['analytics'],
};
