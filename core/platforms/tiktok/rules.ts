/**
 * TikTok Events API: what a destination of this type needs to work (config keys, secret roles, a URL,
 * a test code in test mode) and the consent purposes it requires by default.
 * Ads and the user data they carry need both purposes.
 */
import type { PlatformRules } from '../driver.ts';

export const TIKTOK_RULES: PlatformRules = {
  requirements: {
    config: ['pixel_code'],
    optionalConfig: ['event_source'],
    secrets: ['access_token'],
    baseUrl: false,
    testEventCode: true,
  },
  consent: ['ads', 'ad_user_data'],
};
