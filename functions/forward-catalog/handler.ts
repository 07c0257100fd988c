/**
 * The forward-catalog function's request handling (issue #65; docs/catalog-destinations.md):
 * forward's handler (functions/forward/handler.ts: decode the push, run the delivery core, write
 * the ledger rows, answer 204 or 503) with the one driver this function carries, Segment's
 * actions (adapters/segment-actions/driver.ts). Everything else a delivery promises — the
 * ledger row per attempt, redelivery and dead letters, replays, the erased persons' list, the
 * redelivery check — is forward's own code, unchanged.
 */
import type { Request, Response } from '@google-cloud/functions-framework';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import type { RefreshTokenStore } from '../../adapters/segment-actions/run.ts';
import { andThen } from '../../core/maybe-async.ts';
import type { Driver } from '../../core/platforms/driver.ts';
import { withOAuthConnection } from '../../core/platforms/segment-action/oauth.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { createForwardHandler, type ForwardServices } from '../forward/handler.ts';

/** What forward-catalog needs besides forward's services: the fetch Segment's actions send through. */
export interface ForwardCatalogServices extends Omit<ForwardServices, 'driverFor' | 'send'> {
  readonly fetch: typeof fetch;
  /** Where OAuth refresh tokens are kept and rotated (Secret Manager's versions), when the secrets are there. */
  readonly refreshTokens?: RefreshTokenStore;
}

/**
 * Builds the `forwardCatalog` http handler: a push for any destination but a segment_action one
 * is recorded as rejected (its subscription pushes to forward), as forward does for a type it has
 * no driver for.
 */
export function createForwardCatalogHandler(
  config: Parameters<typeof createForwardHandler>[0],
  services: () => ForwardCatalogServices | Promise<ForwardCatalogServices>,
): (req: Request, res: Response) => Promise<unknown> | undefined {
  let built: { from: ForwardCatalogServices; services: ForwardServices } | undefined;
  const withDriver = (s: ForwardCatalogServices): ForwardServices => {
    if (built?.from === s) return built.services;
    const driver: Driver = segmentActionDriver(s.fetch, s.refreshTokens);
    const { fetch: _fetch, refreshTokens: _tokens, ...rest } = s;
    built = {
      from: s,
      services: { ...rest, send: notSent, driverFor: (type) => (type === driver.type ? driver : undefined) },
    };
    return built.services;
  };
  // A destination's oauth2 connection's secrets are read with its own (oauth.ts).
  const settings: Settings = {
    ...config.settings,
    destinations: (config.settings.destinations ?? []).map(
      (d) => withOAuthConnection(d, config.settings.connections) as Destination,
    ),
  };
  return createForwardHandler({ ...config, settings }, () => andThen(services(), withDriver));
}

/** The core's own sender is never called here: Segment's actions send their requests themselves. */
const notSent: ForwardServices['send'] = () =>
  Promise.resolve({ kind: 'network_error', message: 'forward-catalog sends only through Segment actions' });
