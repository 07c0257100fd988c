/**
 * What some of Segment's destinations read from Segment's own process environment rather than
 * from their settings (docs/catalog-destinations.md, "Settings Segment keeps in its environment"):
 * Google Ads' developer token (`ADWORDS_DEVELOPER_TOKEN`), Dynamic Yield's client secret (its
 * Authorization header, one for each of its data centres), and the OAuth client Segment registered
 * with LinkedIn, Amazon, Google (DV360, Enhanced Conversions), Yahoo and Salesforce. Here each is a
 * setting of ours: a secret of the destination under a role of its own (never a value in the
 * settings file), or the client of the destination's `oauth2` connection (the operator registers
 * their own app). The runtime (adapters/segment-actions/run.ts) gives the action these values
 * under Segment's names while it runs, as Segment's runtime has them in its environment. Pure.
 */
import { OAUTH_ROLES } from './oauth.ts';

/** Where a value Segment reads from its environment comes from here. */
export type EnvironmentSource =
  /** A secret of the destination, under this role (`secrets.<role>`); `required` when every delivery needs it. */
  | { readonly secret: string; readonly required?: boolean }
  /** The destination's `oauth2` connection's secret of this role (oauth.ts). */
  | { readonly connection: keyof typeof OAUTH_ROLES };

const CLIENT = (id: string, secret: string): Record<string, EnvironmentSource> => ({
  [id]: { connection: 'client_id' },
  [secret]: { connection: 'client_secret' },
});

/** Per destination folder: each environment variable its code reads, and where ours is. */
export const SEGMENT_ENVIRONMENT: Readonly<Record<string, Readonly<Record<string, EnvironmentSource>>>> =
  Object.freeze({
    'google-enhanced-conversions': {
      ADWORDS_DEVELOPER_TOKEN: { secret: 'developer_token', required: true },
      ...CLIENT('GOOGLE_ENHANCED_CONVERSIONS_CLIENT_ID', 'GOOGLE_ENHANCED_CONVERSIONS_CLIENT_SECRET'),
    },
    'linkedin-conversions': CLIENT(
      'ACTIONS_LINKEDIN_CONVERSIONS_CLIENT_ID',
      'ACTIONS_LINKEDIN_CONVERSIONS_CLIENT_SECRET',
    ),
    'amazon-amc': CLIENT('ACTIONS_AMAZON_AMC_CLIENT_ID', 'ACTIONS_AMAZON_AMC_CLIENT_SECRET'),
    'first-party-dv360': CLIENT(
      'ACTIONS_FIRST_PARTY_DV360_CLIENT_ID',
      'ACTIONS_FIRST_PARTY_DV360_CLIENT_SECRET',
    ),
    'display-video-360': {
      ...CLIENT('ACTIONS_DISPLAY_VIDEO_360_CLIENT_ID', 'ACTIONS_DISPLAY_VIDEO_360_CLIENT_SECRET'),
      ACTIONS_DISPLAY_VIDEO_360_REFRESH_TOKEN: { connection: 'refresh_token' },
    },
    'yahoo-audiences': {
      ACTIONS_YAHOO_AUDIENCES_TAXONOMY_CLIENT_ID: { secret: 'taxonomy_client_id' },
      ACTIONS_YAHOO_AUDIENCES_TAXONOMY_CLIENT_SECRET: { secret: 'taxonomy_client_secret' },
    },
    salesforce: CLIENT('SALESFORCE_CLIENT_ID', 'SALESFORCE_CLIENT_SECRET'),
    // The data centre is read from the section id (8… US, 9… EU, else DEV); each has its secret,
    // sent as the Authorization header of every request: here the destination's one secret.
    'dynamic-yield-audiences': Object.fromEntries(
      ['US', 'EU', 'DEV'].map((dc) => [
        `ACTIONS_DYNAMIC_YIELD_AUDIENCES_${dc}_CLIENT_SECRET`,
        { secret: 'client_secret', required: true },
      ]),
    ),
  });

/** Every environment variable of the table: the names the runtime answers for the run in progress. */
export const SEGMENT_ENVIRONMENT_NAMES: ReadonlySet<string> = new Set(
  Object.values(SEGMENT_ENVIRONMENT).flatMap((e) => Object.keys(e)),
);

/** The secret roles of ours a destination may name for what Segment reads from its environment, and whether each is required. */
export function environmentRoles(
  slug: string,
): readonly { readonly role: string; readonly required: boolean }[] {
  const roles = new Map<string, boolean>();
  for (const s of Object.values(SEGMENT_ENVIRONMENT[slug] ?? {}))
    if ('secret' in s) roles.set(s.secret, (roles.get(s.secret) ?? false) || s.required === true);
  return [...roles].map(([role, required]) => ({ role, required }));
}

/**
 * The environment a destination's actions run with: each name of its entry whose value the
 * destination's secrets hold (by role; the connection's under OAUTH_ROLES). A name without one
 * is left to the process's own environment, as before.
 */
export function environmentOf(
  slug: string,
  secrets: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [name, source] of Object.entries(SEGMENT_ENVIRONMENT[slug] ?? {})) {
    const value = secrets['secret' in source ? source.secret : OAUTH_ROLES[source.connection]];
    if (value !== undefined && value !== '') env[name] = value;
  }
  return env;
}
