/**
 * The stack config the Pulumi program reads: `gcp:project`, `gcp:region`, `settingsFile` (the
 * environment's YAML) and the optional `buildRoot`. Settings go through the same parser and schema
 * as the local environment, so a bad value fails `pulumi up` naming its key. Pulumi's own reading
 * of them is infra/stack-reader.ts: this module loads no Pulumi code, so what checks settings as
 * the program does (the inner loop's tests, the access plan) does not load Pulumi for it.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as pulumi from '@pulumi/pulumi';
import { gatewaySecrets, missingGatewaySecrets } from '../core/access/gateway-secrets.ts';
import type { BillingStamp, KeptFunction } from '../core/deploy/billing-kept.ts';
import { type Plan, plan } from '../core/plan.ts';
import { segmentActionViolations } from '../core/platforms/segment-action/check.ts';
import { formatErrors, parseSettings } from '../core/settings.ts';
import type { Settings } from '../schemas/settings.ts';

/** The repository root: relative settings paths and the bundle manifest are resolved from here. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The three values a stack's config holds, as `pulumi config set` wrote them. */
export interface StackValues {
  readonly project?: string | undefined;
  readonly region?: string | undefined;
  readonly settingsFile?: string | undefined;
}

export interface StackConfig {
  readonly project: string;
  readonly region: string;
  readonly settingsFile: string;
  readonly settings: Readonly<Settings>;
  readonly plan: Plan;
  /**
   * The values of the gateway's secrets the settings need (core/access/gateway-secrets.ts), by
   * stack config key, as Pulumi secrets. Absent offline (the access plan, tests under mocks): the
   * secrets, grants and env bindings are declared, but no version.
   */
  readonly gatewaySecretValues?: Readonly<Record<string, pulumi.Input<string>>>;
  /**
   * What the program decided for store's and forward's billing and why (infra/program.ts, from
   * the stack's state), stamped on their deployables. Absent: a stack never deployed.
   */
  readonly billingKept?: Readonly<Record<KeptFunction, BillingStamp>>;
  /**
   * With `gateway.site_url_map_import`: the snapshot of the site's URL map read from that file
   * (core/deploy/site-url-map-import.ts), and whether the stack's state already holds the map
   * (infra/program.ts): then the path rule is added to it, else it is imported as it is.
   */
  readonly siteUrlMap?: { readonly snapshot: unknown; readonly imported: boolean };
}

/** Raised for any bad stack value; the message names the config key or settings key at fault. */
export class StackConfigError extends Error {
  override name = 'StackConfigError';
}

/**
 * Loads and checks the stack's values: the settings file must parse and validate, and its
 * `project` and `region` must be the stack's (one environment per project).
 */
export function loadStackConfig(values: StackValues, root: string = REPO_ROOT): StackConfig {
  const missing = (['project', 'region', 'settingsFile'] as const).filter((k) => !values[k]);
  if (missing.length > 0) {
    const keys = missing.map((k) => (k === 'settingsFile' ? 'settingsFile' : `gcp:${k}`));
    throw new StackConfigError(
      `missing stack config ${keys.join(', ')}: set with \`pulumi config set <key> <value>\``,
    );
  }
  const project = values.project as string;
  const region = values.region as string;
  const settingsFile = isAbsolute(values.settingsFile as string)
    ? (values.settingsFile as string)
    : resolve(root, values.settingsFile as string);
  let text: string;
  try {
    text = readFileSync(settingsFile, 'utf8');
  } catch (err) {
    throw new StackConfigError(`settingsFile: cannot read ${settingsFile}: ${(err as Error).message}`);
  }
  const result = parseSettings(text);
  // segment_action destinations against the catalogue manifest, as `settings check` does.
  const errors = result.ok ? segmentActionViolations(result.settings) : result.errors;
  if (!result.ok || errors.length > 0) {
    throw new StackConfigError(`settingsFile ${settingsFile} is invalid:\n${formatErrors(errors)}`);
  }
  const { settings } = result;
  const mismatches: string[] = [];
  if (settings.project !== project)
    mismatches.push(`project: "${settings.project}" differs from the stack's gcp:project "${project}"`);
  if (settings.region !== region)
    mismatches.push(`region: "${settings.region}" differs from the stack's gcp:region "${region}"`);
  if (mismatches.length > 0) {
    throw new StackConfigError(`settingsFile ${settingsFile} is invalid:\n${mismatches.join('\n')}`);
  }
  const snapshot = siteUrlMapSnapshot(settings, settingsFile);
  return Object.freeze({
    project,
    region,
    settingsFile,
    settings,
    plan: plan(settings),
    ...(snapshot === undefined ? {} : { siteUrlMap: { snapshot, imported: false } }),
  });
}

/** The site's URL map snapshot `gateway.site_url_map_import` names, relative to the settings file. */
function siteUrlMapSnapshot(settings: Readonly<Settings>, settingsFile: string): unknown {
  const file = settings.gateway?.site_url_map_import;
  if (file === undefined) return undefined;
  const path = resolve(dirname(settingsFile), file);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new StackConfigError(
      `gateway.site_url_map_import: cannot read ${path} (write it with \`gcloud compute url-maps describe ` +
        `${settings.gateway?.site_url_map ?? '<map>'} --global --format=json > ${file}\`): ${(err as Error).message}`,
    );
  }
}

/**
 * The gateway's secret values the settings need, read as the stack's config secrets (set once by
 * the engineer, so every `pulumi up` keeps the same value); a missing one is refused before
 * anything is declared, naming the command that sets it.
 */
export function readGatewaySecretValues(
  settings: Readonly<Settings>,
  getSecret: (key: string) => pulumi.Output<string> | undefined,
): Readonly<Record<string, pulumi.Output<string>>> {
  const values = gatewaySecrets(settings).map((s) => [s.configKey, getSecret(s.configKey)] as const);
  const refusal = missingGatewaySecrets(gatewaySecrets(settings), (k) =>
    values.some(([key, v]) => key === k && v !== undefined),
  );
  if (refusal) throw new StackConfigError(refusal);
  return Object.fromEntries(values) as Record<string, pulumi.Output<string>>;
}
