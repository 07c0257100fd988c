/**
 * How the tag sends: events wait at most a second and leave in batches (an array on the
 * gateway's plain form, `POST /v1/topics/events?tag=1`, docs/gateway.md), as `text/plain` with
 * the write key in `?key=`, so no request needs a CORS preflight. A batch the network or the bus
 * failed (no answer, 408, 429, 5xx) is sent again with exponential backoff and the same
 * `event_id`s (the warehouse keeps one copy). Nothing else is sent again: on the tag's form the
 * gateway stores a batch's valid events, keeps the ones it refuses for invalid_events and
 * answers 200 naming them, and any other answer is final. When the page is hidden or left,
 * everything waiting goes at once with `fetch(…, {keepalive: true})`, whose failure the tag can
 * see, and `sendBeacon` as the last resort (a beacon a blocker stops is usually reported as sent).
 */
import type { Fields } from './context.ts';

/** An event waiting, and what runs once its batch is answered. */
type Pending = [event: Fields, done?: () => void];

const DELAY_MS = 1000;
const MAX_EVENTS = 100;
/** keepalive requests share 64 KiB in flight; a batch stays well under it. */
const MAX_BYTES = 48_000;
const ATTEMPTS = 8;

/**
 * The sender to `url` (`https://<gateway>/v1/topics/events?key=<write key>`); `credentials`
 * `include` where the gateway is on the site's domain and sets ids in its answers.
 */
export function createSender(
  url: string,
  credentials: RequestCredentials,
  log: (...what: unknown[]) => void,
) {
  const queue: Pending[] = [];
  /** Batches waiting for their next attempt, by timer. */
  const waiting = new Map<ReturnType<typeof setTimeout>, readonly Pending[]>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const settle = (batch: readonly Pending[]) => {
    for (const p of batch) p[1]?.();
  };

  /** The queue cut into batches of at most MAX_EVENTS events and MAX_BYTES bytes. */
  const take = (): Pending[][] => {
    const batches: Pending[][] = [];
    let batch: Pending[] = [];
    let bytes = 2;
    for (const p of queue.splice(0)) {
      const size = JSON.stringify(p[0]).length + 1;
      if (batch.length >= MAX_EVENTS || (batch.length > 0 && bytes + size > MAX_BYTES)) {
        batches.push(batch);
        batch = [];
        bytes = 2;
      }
      batch.push(p);
      bytes += size;
    }
    if (batch.length > 0) batches.push(batch);
    return batches;
  };

  const retry = (batch: readonly Pending[], attempt: number, afterSeconds = 0) => {
    if (attempt + 1 >= ATTEMPTS) {
      log('gave up:', batch.length, 'event(s)');
      return settle(batch);
    }
    const t = setTimeout(
      () => {
        waiting.delete(t);
        post(batch, attempt + 1);
      },
      afterSeconds * 1000 || Math.min(60_000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2),
    );
    waiting.set(t, batch);
  };

  function post(batch: readonly Pending[], attempt: number, leaving?: boolean): void {
    const events = batch.map((p) => p[0]);
    const body = JSON.stringify(events);
    log('send', batch.length, 'event(s)', events);
    // A fetch that throws (a page that replaced it) fails as one that gets no answer.
    new Promise<Response>((sent) =>
      sent(
        fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'text/plain' },
          keepalive: body.length < 60_000,
          credentials,
        }),
      ),
    ).then(
      (res) => {
        const status = res.status;
        // The answer names the events the gateway kept aside as invalid (the tag's form: tag=1).
        res.text().then((a) => log('answer', status, a), log);
        if (status === 408 || status === 429 || status >= 500)
          return retry(batch, attempt, Number(res.headers.get('retry-after')));
        settle(batch);
      },
      // No answer: offline, blocked, or the origin is not in producers.origins (CORS).
      () => {
        if (!leaving) return retry(batch, attempt);
        log('beacon queued:', navigator.sendBeacon?.(url, new Blob([body], { type: 'text/plain' })));
        settle(batch);
      },
    );
  }

  /** Sends what waits now; `leaving`: the page is hidden or unloading, retries go too. */
  const flush = (leaving?: boolean) => {
    clearTimeout(timer);
    timer = undefined;
    if (leaving)
      for (const [t, batch] of waiting) {
        clearTimeout(t);
        waiting.delete(t);
        queue.push(...batch);
      }
    for (const batch of take()) post(batch, 0, leaving);
  };

  return {
    /** Queues one event; `done` runs once its batch is answered (or given up). */
    add(event: Fields, done: () => void): void {
      queue.push([event, done]);
      if (queue.length >= MAX_EVENTS) flush();
      else timer ??= setTimeout(flush, DELAY_MS);
    },
    flush,
  };
}
