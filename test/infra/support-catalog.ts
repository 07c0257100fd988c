/**
 * Settings with catalogue destinations (`type: segment_action`, issue #65) for the deploy tests:
 * the example environment with a Klaviyo destination added, declared under Pulumi's mocks with
 * the forward-catalog bundle `npm run build:functions -- --settings <file>` would write.
 */
import { plan } from '../../core/plan.ts';
import type { StackConfig } from '../../infra/config.ts';
import { bundlesFor } from '../../infra/offline.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { example } from './support-functions.ts';

const RETRY = { max_attempts: 12, minimum_backoff: '20s', maximum_backoff: '300s' };

/** A Klaviyo destination as a user writes it: its API key from Secret Manager, one action. */
export const KLAVIYO: Destination = {
  id: 'klaviyo',
  type: 'segment_action',
  destination: 'klaviyo',
  secrets: { api_key: 'klaviyo-private-key' },
  // (trackEvent's profile has no preset: settings check requires it.)
  actions: [{ action: 'trackEvent', mapping: { profile: { email: { '@path': '$.context.traits.email' } } } }],
  retry: RETRY,
};

/** The same destination delivered by `forward` (a webhook): what its subscription must equal. */
export const AS_WEBHOOK: Destination = {
  id: 'klaviyo',
  type: 'webhook',
  config: { url: 'https://hooks.example.com/klaviyo' },
  retry: RETRY,
};

/** Settings with `destinations` added. */
export const withDestinations = (settings: Settings, ...added: Destination[]): Settings => ({
  ...settings,
  destinations: [...(settings.destinations ?? []), ...added],
});

/** The example with a catalogue destination. */
export const exampleWithCatalog = (): Settings => withDestinations(example(), KLAVIYO);

/** A stack config over settings (the file is never read: the tests build settings in code). */
export function configOf(settings: Settings): StackConfig {
  return {
    project: settings.project,
    region: settings.region,
    settingsFile: 'environments/example.yaml',
    settings,
    plan: plan(settings),
  };
}

/** What the build writes for these settings (forward-catalog carrying their destinations). */
export const bundlesOf = (settings: Settings) => bundlesFor(settings);
