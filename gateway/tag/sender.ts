/**
 * How the tag sends: events wait at most a second and leave in batches (an array on the
 * gateway's plain form, `POST /v1/topics/events`, docs/gateway.md), as `text/plain` with the
 * write key in `?key=`, so no request needs a CORS preflight. A batch the network or the bus
 * failed (no answer, 408, 429, 5xx) is sent again with exponential backoff and the same
 * `event_id`s (the warehouse keeps one copy); a 400 names the events it refused, and the rest
 * are sent again. When the page is hidden or left, everything waiting goes at once with
 * `fetch(…, {keepalive: true})`, whose failure the tag can see, and `sendBeacon` as the last
 * resort (a beacon a blocker stops is usually reported as sent).
 */
import type { Fields } from './context.ts';

interface Pending {
  readonly event: Fields;
  done?: () => void;
}

/** What the sender needs from the page. */
export interface SenderOptions {
  /** `https://<gateway>/v1/topics/events?key=<write key>`. */
  readonly url: string;
  /** `include` where the gateway is on the site's domain and sets ids in its answers. */
  readonly credentials: 'include' | 'omit';
  readonly log: (...what: unknown[]) => void;
}

const DELAY_MS = 1000;
const MAX_EVENTS = 100;
/** keepalive requests share 64 KiB in flight; a batch stays well under it. */
const MAX_BYTES = 48_000;
const ATTEMPTS = 8;

export function createSender(options: SenderOptions) {
  const queue: Pending[] = [];
  /** Batches waiting for their next attempt, by timer. */
  const waiting = new Map<ReturnType<typeof setTimeout>, readonly Pending[]>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const settle = (batch: readonly Pending[]) => {
    for (const p of batch) p.done?.();
  };

  /** The queue cut into batches of at most MAX_EVENTS events and MAX_BYTES bytes. */
  const take = (): Pending[][] => {
    const batches: Pending[][] = [];
    let batch: Pending[] = [];
    let bytes = 2;
    for (const p of queue.splice(0)) {
      const size = JSON.stringify(p.event).length + 1;
      if (batch.length > 0 && (batch.length >= MAX_EVENTS || bytes + size > MAX_BYTES)) {
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

  const retry = (batch: readonly Pending[], attempt: number, afterSeconds?: number) => {
    if (attempt + 1 >= ATTEMPTS) {
      options.log('gave up:', batch.length, 'event(s)');
      return settle(batch);
    }
    const backoff = Math.min(60_000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
    const t = setTimeout(
      () => {
        waiting.delete(t);
        post(batch, attempt + 1, false);
      },
      afterSeconds ? afterSeconds * 1000 : backoff,
    );
    waiting.set(t, batch);
  };

  /**
   * A 400: the events its field violations name (`[2].content_name`) are dropped and the rest
   * sent again; an event refused only for its `event_time` (a device clock days off) is sent
   * again without it (the gateway then stamps the time it receives it).
   */
  const refused = (batch: readonly Pending[], answer: unknown, attempt: number) => {
    const details = (answer as { error?: { details?: { fieldViolations?: { field?: string }[] }[] } }).error
      ?.details;
    const bad = new Set<number>();
    const clock = new Set<number>();
    for (const d of details ?? [])
      for (const v of d.fieldViolations ?? []) {
        const m = /^\[(\d+)\](\.event_time$)?/.exec(v.field ?? '');
        if (m) (m[2] ? clock : bad).add(Number(m[1]));
      }
    for (const i of clock) if (!bad.has(i)) delete batch[i]?.event['event_time'];
    const kept = batch.filter((_, i) => !bad.has(i));
    options.log('refused', batch.length - kept.length, 'event(s):', answer);
    settle(batch.filter((_, i) => bad.has(i)));
    if (bad.size + clock.size > 0 && kept.length > 0) post(kept, attempt, false);
    else settle(kept);
  };

  function post(batch: readonly Pending[], attempt: number, leaving: boolean): void {
    const body = JSON.stringify(batch.map((p) => p.event));
    options.log(
      'send',
      batch.length,
      'event(s)',
      batch.map((p) => p.event),
    );
    const beacon = () => {
      const sent = navigator.sendBeacon?.(options.url, new Blob([body], { type: 'text/plain' }));
      options.log('beacon queued:', !!sent);
      settle(batch);
    };
    let sending: Promise<Response>;
    try {
      sending = fetch(options.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'text/plain' },
        keepalive: body.length < 60_000,
        credentials: options.credentials,
      });
    } catch {
      if (leaving) beacon();
      else retry(batch, attempt);
      return;
    }
    sending.then(
      (res) => {
        if (res.ok) {
          options.log('sent', res.status);
          return settle(batch);
        }
        if (res.status === 400)
          return res.json().then(
            (a) => refused(batch, a, attempt),
            () => settle(batch),
          );
        if (res.status === 408 || res.status === 429 || res.status >= 500)
          return retry(batch, attempt, Number(res.headers.get('retry-after')) || undefined);
        options.log('refused', res.status);
        settle(batch);
      },
      // No answer: offline, blocked, or the origin is not in producers.origins (CORS).
      () => (leaving ? beacon() : retry(batch, attempt)),
    );
  }

  /** Sends what waits now; `leaving`: the page is hidden or unloading, retries go too. */
  const flush = (leaving = false) => {
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
    add(event: Fields, done?: () => void): void {
      queue.push(done ? { event, done } : { event });
      if (queue.length >= MAX_EVENTS) flush();
      else timer ??= setTimeout(flush, DELAY_MS);
    },
    flush,
  };
}
