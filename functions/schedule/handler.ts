/**
 * The `schedule` function's request handling: a push from `ticks-schedule` dispatches, a push
 * from `runs-schedule` runs one chunk (runner.ts). Answers 204 once the work is done or needs
 * nothing, including a failed chunk (the next tick retries it: one retry path, not two), and 503
 * when a run message could not be published, or a manual run could not start now (another run
 * holds its lock; no tick would bring it back), so Pub/Sub redelivers.
 */
import type { Request, Response } from '@google-cloud/functions-framework';
import { apiError } from '../../core/errors.ts';
import { decodePushBody, type PushedBody } from '../../core/push.ts';
import type { RunMessage, RunTrigger } from '../../core/scheduler/dispatch.ts';
import { fail, ok, type Step } from '../../core/step.ts';
import { answerError, postOnly } from '../answer.ts';
import { type ActionDeps, deadLetterRow, isDeadLetterPush, parseFiring, runFiring } from './actions.ts';
import { type RunnerDeps, type RunOutcome, runChunk, tick } from './runner.ts';

/** What the schedule function needs: the runner's deps, and the actions' when rules are on. */
export interface ScheduleDeps extends RunnerDeps {
  readonly actions?: ActionDeps;
}

/** The attribute that tells a run message from a tick (Cloud Scheduler's tick sets `tick`). */
export const MESSAGE_TYPE_ATTRIBUTE = 'type';

/** Reads a run message's body; undefined when it is not one. */
export function parseRunMessage(data: Uint8Array): RunMessage | undefined {
  try {
    const v = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<RunMessage>;
    const trigger: RunTrigger | undefined =
      v.trigger === 'manual' || v.trigger === 'schedule' ? v.trigger : undefined;
    if (
      typeof v.kind !== 'string' ||
      typeof v.name !== 'string' ||
      typeof v.slot !== 'string' ||
      Number.isNaN(Date.parse(v.slot)) ||
      !trigger
    )
      return undefined;
    return { kind: v.kind, name: v.name, slot: v.slot, trigger };
  } catch {
    return undefined;
  }
}

/** The push a request carries, or the 405 or 400 to answer (no redelivery could fix either). */
function pushOf(req: Request): Step<PushedBody> {
  const posted = postOnly(req);
  if (!posted.ok) return posted;
  const decoded = decodePushBody(req.body);
  return decoded.ok
    ? ok(decoded.message)
    : fail('INVALID_ENVELOPE', { detail: 'not a Pub/Sub push body' }, decoded.violations);
}

export function createScheduleHandler(
  deps: () => ScheduleDeps | Promise<ScheduleDeps>,
): (req: Request, res: Response) => Promise<void> | undefined {
  return (req, res) => {
    const push = pushOf(req);
    if (!push.ok) {
      answerError(res, push.error);
      return undefined;
    }
    const { attributes, data } = push.value;
    if (attributes[MESSAGE_TYPE_ATTRIBUTE] === 'action') {
      const firing = parseFiring(data);
      if (!firing) {
        log('ERROR', 'a firing without rule, version, firing_id and event was dropped');
        res.status(204).end();
        return undefined;
      }
      return Promise.resolve(deps())
        .then(async (d) => {
          if (!d.actions) throw new Error('rules are off in these settings (experimental.rules)');
          if (isDeadLetterPush(attributes)) {
            await d.actions.writeRuns([deadLetterRow(firing, attributes, new Date())]);
            return true;
          }
          const outcome = await runFiring(d.actions, firing, push.value.deliveryAttempt);
          return outcome.ack;
        })
        .then(
          (ack) => {
            if (ack) res.status(204).end();
            else answerError(res, apiError('UNAVAILABLE', { retryAfter: 10 }));
          },
          (err: unknown) => {
            log(
              'ERROR',
              `firing ${firing.firing_id} of rule ${firing.rule} failed: ${(err as Error).message}`,
            );
            answerError(res, apiError('UNAVAILABLE', { retryAfter: 10 }));
          },
        );
    }
    const isRun = attributes[MESSAGE_TYPE_ATTRIBUTE] === 'run';
    const run = isRun ? parseRunMessage(data) : undefined;
    if (isRun && !run) {
      // Redelivery cannot fix a malformed run message: acknowledged, and said in the log.
      log('ERROR', 'a run message without kind, name, slot and trigger was dropped');
      res.status(204).end();
      return undefined;
    }
    return Promise.resolve(deps())
      .then((d): Promise<unknown> => (run ? runChunk(d, run) : tick(d)))
      .then(
        (outcome) => {
          // A manual run that could not start now comes back (Pub/Sub's backoff), not dropped.
          if ((outcome as RunOutcome | undefined)?.outcome === 'waiting') {
            log('WARNING', `${(outcome as { reason: string }).reason}; answering 503 so it comes back`);
            answerError(res, apiError('UNAVAILABLE', { retryAfter: 10 }));
          } else res.status(204).end();
        },
        (err: unknown) => {
          log('ERROR', `${run ? 'run' : 'tick'} failed, answering 503: ${(err as Error).message}`);
          answerError(res, apiError('UNAVAILABLE', { retryAfter: 10 }));
        },
      );
  };
}

function log(severity: 'WARNING' | 'ERROR', message: string): void {
  console.log(JSON.stringify({ severity, message, component: 'schedule' }));
}
