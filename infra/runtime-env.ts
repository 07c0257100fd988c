/**
 * The environment variables a deployed function or the gateway starts with: the validated
 * settings as JSON and the project, never an emulator host and never a secret value.
 */

import { ENV } from '../core/runtime-config.ts';
import type { Settings } from '../schemas/settings.ts';

/** Variables Google's clients would read as emulator hosts; a deployed workload must never get one. */
export const EMULATOR_VARIABLES = Object.freeze(['PUBSUB_EMULATOR_HOST', 'BIGQUERY_EMULATOR_HOST']);

/** The runtime environment of every deployed workload (functions and gateway). */
export function runtimeEnvironment(settings: Readonly<Settings>, project: string): Record<string, string> {
  return {
    [ENV.settings]: JSON.stringify(settings),
    [ENV.project]: project,
    // The functions framework prints stack traces in its error pages unless production.
    NODE_ENV: 'production',
  };
}
