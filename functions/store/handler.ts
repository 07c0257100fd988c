/**
 * The store function's HTTP handler: decode the push, write the rows, then (and only then)
 * acknowledge. Built from explicit dependencies so tests and benchmarks can compose it;
 * `index.ts` registers it with the functions framework.
 */
import type { Request, Response } from '@google-cloud/functions-framework';
import { type ApiError, apiError } from '../core/errors.ts';
import type { RowWriter } from '../core/rows.ts';
import {
  type AfterStored,
  decodePushBody,
  malformedPushRow,
  type StoreConfig,
  storeMessages,
} from '../core/store.ts';
import { TABLES } from '../core/warehouse.ts';

/** One structured log line (Cloud Logging reads `severity` and `message` from JSON on stdout). */
export type Log = (
  entry: { severity: 'INFO' | 'WARNING' | 'ERROR'; message: string } & Record<string, unknown>,
) => void;

export interface StoreDeps {
  readonly config: StoreConfig;
  readonly writer: RowWriter;
  /** Runs after the rows are written; a throw makes the push fail so Pub/Sub redelivers. */
  readonly afterStored?: AfterStored;
  readonly now?: () => number;
  readonly log?: Log;
}

/** Seconds a producer-facing 503 suggests; Pub/Sub itself follows the subscription's backoff. */
const RETRY_AFTER_SECONDS = 10;

const jsonLog: Log = (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`);

function send(res: Response, error: ApiError): void {
  res.status(error.http).set(error.headers).json(error.body);
}

/** The store handler: 204 once every row of the push is written, non-2xx otherwise. */
export function createStoreHandler(deps: StoreDeps): (req: Request, res: Response) => Promise<void> {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? jsonLog;
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.set('allow', 'POST');
      send(res, apiError('METHOD_NOT_ALLOWED', { method: req.method, path: req.path }));
      return;
    }
    const decoded = decodePushBody(req.body);
    try {
      if (!decoded.ok) {
        // Not a push body: no redelivery can fix it, so keep the raw body and answer 400.
        const body = req.rawBody ? req.rawBody.toString('utf8') : JSON.stringify(req.body ?? null);
        const rejected = await deps.writer.write(TABLES.invalidEvents, [
          malformedPushRow(body, decoded.violations, now()),
        ]);
        if (rejected.length > 0) throw new Error(`invalid_events refused a row: ${rejected[0]?.message}`);
        log({
          severity: 'WARNING',
          message: 'not a Pub/Sub push body; kept in invalid_events',
          violations: decoded.violations,
        });
        send(res, apiError('INVALID_ENVELOPE', { detail: 'not a Pub/Sub push body' }, decoded.violations));
        return;
      }
      const outcome = await storeMessages([decoded.message], {
        writer: deps.writer,
        config: deps.config,
        now,
      });
      if (deps.afterStored && outcome.stored.length > 0) {
        await deps.afterStored(outcome.stored, outcome.storedMessages);
      }
      res.status(204).end();
    } catch (err) {
      // Warehouse unavailable or a transient error: nothing is acknowledged; Pub/Sub retries.
      log({
        severity: 'ERROR',
        message: `store failed, the push will be redelivered: ${(err as Error).message}`,
        messageId: decoded.ok ? decoded.message.messageId : undefined,
        deliveryAttempt: decoded.ok ? decoded.message.deliveryAttempt : undefined,
      });
      send(res, apiError('UNAVAILABLE', { retryAfter: RETRY_AFTER_SECONDS }));
    }
  };
}
