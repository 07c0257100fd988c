/**
 * `node local/receiver/main.ts [--port 8099] [--host 127.0.0.1] [--iam <file> [--identity
 * <member>=<port>]…]`: the local receiver for
 * the example destinations of the environment in EVENTBUS_SETTINGS. Webhook signing keys
 * are read like the forward function reads them (env, then EVENTBUS_SECRETS_DIR).
 * Platform destinations whose base_url points here (`http://127.0.0.1:8099/meta`, `/ga4`,
 * `/tiktok`, `/google-ads`, `/linkedin`, `/microsoft`, `/reddit`) are served by the project's loopback platform receivers, which check requests
 * against each platform's published rules; segment_action destinations (`/capture`) by the
 * capturing stand-in (local/platforms/capture.ts). With `--iam`, writing and reading traces
 * and delivery metrics is checked against the access file as the emulators check their APIs
 * (trace-access.ts).
 */
import { parseArgs } from 'node:util';
import { redactProcessOutput } from '../../adapters/log-redaction.ts';
import { createSecrets } from '../../adapters/secrets.ts';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { readRuntimeConfig } from '../../core/runtime-config.ts';
import { type IdentityPort, identityOption } from '../../emulators/common/iam-enforce.ts';
import type { Destination } from '../../schemas/settings.ts';
import {
  startCaptureReceiver,
  startGa4Receiver,
  startGoogleAdsReceiver,
  startLinkedInReceiver,
  startMetaReceiver,
  startMicrosoftReceiver,
  startPinterestReceiver,
  startRedditReceiver,
  startSnapchatReceiver,
  startTikTokReceiver,
  startXReceiver,
} from '../platforms/index.ts';
import { CAPTURE_PREFIX } from '../services.ts';
import { type MountedPlatform, startReceiver } from './server.ts';

// Every line this process writes leaves through the one redaction (core/privacy/redact-log.ts).
redactProcessOutput();
const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    iam: { type: 'string' },
    identity: { type: 'string', multiple: true },
    // The OAuth stand-in's registrations, kept across restarts (local/platforms/capture.ts).
    'oauth-clients': { type: 'string' },
  },
  allowPositionals: false,
});
const config = readRuntimeConfig(process.env, readSettingsText);
const secrets = createSecrets({
  env: process.env,
  secretsDir: config.secretsDir,
  endpoint: config.secretManager,
  project: config.project,
});
const host = values.host ?? process.env['HOST'] ?? '127.0.0.1';
const port = Number(values.port ?? process.env['PORT'] ?? 8099);
if (values.identity && values.iam === undefined) throw new Error('--identity needs --iam');
const identities = (values.identity ?? []).reduce<IdentityPort[]>((all, v) => identityOption(v, all), []);
const destinations = config.settings.destinations ?? [];
const webhooks = destinations.filter((d) => d.type === 'webhook');

/** The capturing stand-in's file of OAuth registrations, when `--oauth-clients` names one. */
function captureOptions(): { oauthClients?: string } {
  const file = values['oauth-clients'];
  return file === undefined ? {} : { oauthClients: file };
}

const START = {
  meta_capi: startMetaReceiver,
  ga4_mp: startGa4Receiver,
  tiktok_events: startTikTokReceiver,
  google_ads: startGoogleAdsReceiver,
  pinterest_capi: startPinterestReceiver,
  snapchat_capi: startSnapchatReceiver,
  x_conversions: startXReceiver,
  linkedin_capi: startLinkedInReceiver,
  microsoft_uet: startMicrosoftReceiver,
  reddit_capi: startRedditReceiver,
  // Catalogue destinations (issue #65): one capturing stand-in per base_url, every vendor host,
  // taking any credential (no options).
  segment_action: (_options: Record<string, string>) => startCaptureReceiver(captureOptions()),
} as const;

/**
 * Stand-ins that accept only the destination's own access token (its secret's value), as the
 * platform does: a destination sharing the stand-in with another token is refused.
 */
const STRICT_TOKEN = new Set([
  'linkedin_capi',
  'microsoft_uet',
  'reddit_capi',
  'pinterest_capi',
  'snapchat_capi',
  'x_conversions',
]);

/** The options of a strict stand-in: the values of the destination's secrets (X signs with four). */
async function standInOptions(d: Destination): Promise<Record<string, string>> {
  if (!STRICT_TOKEN.has(d.type)) return {};
  const roles = {
    accessToken: 'access_token',
    consumerKey: 'consumer_key',
    consumerSecret: 'consumer_secret',
    accessTokenSecret: 'access_token_secret',
  };
  const out: Record<string, string> = {};
  for (const [option, role] of Object.entries(roles)) {
    const name = d.secrets?.[role];
    // A secret not written yet leaves the stand-in taking any token, as the others do.
    const value = name === undefined ? undefined : await secrets.get(name).catch(() => undefined);
    if (value !== undefined) out[option] = value;
  }
  return out;
}

/**
 * The share of what they received that the stand-ins reporting counts (Meta, GA4) leave out
 * (`EVENTBUS_STANDIN_COUNT_SHORTFALL`, 0 to 1): how a test on `npm start` makes a counted gap.
 */
const shortfall = Number(process.env['EVENTBUS_STANDIN_COUNT_SHORTFALL'] ?? '');
const COUNT_SHORTFALL = shortfall > 0 && shortfall <= 1 ? { countShortfall: shortfall } : {};

/** Platform destinations pointed at this receiver, each mounted under its base_url's path. */
async function mountPlatforms(
  origin: string,
): Promise<{ mounts: MountedPlatform[]; close: () => Promise<void> }> {
  const here = destinations.filter(
    (d): d is Destination & { base_url: string } =>
      d.type !== 'webhook' && d.base_url !== undefined && d.base_url.startsWith(`${origin}/`),
  );
  const servers: { close(): Promise<void> }[] = [];
  const mounts: MountedPlatform[] = [];
  for (const d of here) {
    const prefix = d.base_url.slice(origin.length + 1).replace(/\/+$/, '');
    // A second destination at the same path shares the first one's stand-in.
    if (mounts.some((m) => m.prefix === prefix)) continue;
    const server =
      d.type === 'meta_capi' || d.type === 'ga4_mp'
        ? await START[d.type]({ ...(await standInOptions(d)), ...COUNT_SHORTFALL })
        : await START[d.type as keyof typeof START](await standInOptions(d));
    servers.push(server);
    mounts.push({ prefix, destination: d.id, url: server.url });
  }
  // Catalogue destinations without a base_url: forward-catalog's gate sends their judged requests
  // to `/capture` (EVENTBUS_CAPTURE_URL, local/services.ts), as does `eventbus connect`.
  const captured = destinations.find((d) => d.type === 'segment_action' && d.base_url === undefined);
  if (captured && !mounts.some((m) => m.prefix === CAPTURE_PREFIX)) {
    const server = await startCaptureReceiver(captureOptions());
    servers.push(server);
    mounts.push({ prefix: CAPTURE_PREFIX, destination: captured.id, url: server.url });
  }
  // Meta custom audiences and Google Ads Customer Match lists that syncs fill (a connection's
  // url pointing here).
  for (const c of config.settings.connections ?? []) {
    if (c.type !== 'meta_audience' && c.type !== 'google_ads_audience') continue;
    if (!c.url?.startsWith(`${origin}/`)) continue;
    const prefix = c.url.slice(origin.length + 1).replace(/\/+$/, '');
    if (mounts.some((m) => m.prefix === prefix)) continue;
    const server = await (c.type === 'meta_audience' ? startMetaReceiver() : startGoogleAdsReceiver());
    servers.push(server);
    mounts.push({ prefix, destination: c.id, url: server.url });
  }
  return { mounts, close: async () => void (await Promise.all(servers.map((s) => s.close()))) };
}

const platforms = await mountPlatforms(`http://${host}:${port}`);
/**
 * Connections (rules' webhooks and chat messages) whose URL points here are received like
 * webhooks: shown on the page, signatures checked when the connection signs.
 */
const origin = `http://${host}:${port}`;
const connections: Destination[] = (config.settings.connections ?? [])
  .filter(
    (c) => c.type !== 'meta_audience' && c.type !== 'google_ads_audience' && c.url?.startsWith(`${origin}/`),
  )
  .map((c) => ({
    id: c.id,
    type: 'webhook',
    config: { path: (c.url as string).slice(origin.length) },
    ...(c.secrets ? { secrets: c.secrets } : {}),
  }));
const receiver = await startReceiver({
  host,
  port,
  webhooks: [...webhooks, ...connections],
  platforms: platforms.mounts,
  project: config.project,
  ...(values.iam !== undefined ? { iam: { file: values.iam, identities } } : {}),
  signingKey: async (d) => {
    const name = d.secrets?.['signing_key'];
    return name === undefined ? undefined : secrets.get(name);
  },
});
const stop = () => {
  Promise.all([receiver.close(), platforms.close()]).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The ready line comes last: whoever reads it may signal at once, and must find the handlers.
console.log(
  `receiver listening on ${receiver.url} (page: ${receiver.url}/; webhooks: ${webhooks.map((d) => d.id).join(', ') || 'none'}; platforms: ${platforms.mounts.map((m) => `${m.destination} at /${m.prefix}`).join(', ') || 'none'})`,
);
