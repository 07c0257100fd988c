/**
 * Meta Conversions API: what a destination of this type needs to work (config keys, secret roles, a URL,
 * a test code in test mode) and the consent purposes it requires by default.
 * Ads and the user data they carry need both purposes.
 */
import type { PlatformRules } from '../driver.ts';

export const META_RULES: PlatformRules = {
  requirements: {
    config: ['pixel_id'],
    optionalConfig: ['action_source', 'api_version'],
    secrets: ['access_token'],
    baseUrl: false,
    testEventCode: true,
  },
  consent: ['ads', 'ad_user_data'],
};
