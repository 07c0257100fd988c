/**
 * A circuit breaker per destination (docs/delivery.md, "A destination that stops answering"):
 * after FAILURES_TO_OPEN calls in a row that got no answer (timeouts, refused connections), or
 * at once when the concurrency limiter (limiter.ts) sees its calls in flight go unanswered
 * (`trip`), calls to that destination are answered "retry" at once, without sending, except one
 * probe PROBE_EVERY_MS after it opened, then probes twice as far apart each time, up to
 * MAX_PROBE_EVERY_MS; the first answer closes it again. A destination that hangs then receives a
 * few probes instead of every retry of every event — each of which it would answer late, as a
 * duplicate. Pub/Sub's backoff and attempts are unchanged: a held-back call is a failed attempt
 * with its ledger row. A destination that answered with `Retry-After` (throttling) is held back
 * the same way until the time it asked for (at most MAX_HOLD_MS). Per function instance, in
 * memory. Pure (the clock is passed in).
 */

export const FAILURES_TO_OPEN = 5;
/** The first probe of an open breaker, after it opened. */
export const PROBE_EVERY_MS = 10_000;
/** Probes after the first are twice as far apart each time, up to this. */
export const MAX_PROBE_EVERY_MS = 60_000;
/** The longest a `Retry-After` holds a destination back (a wrong header must not stop it for a day). */
export const MAX_HOLD_MS = 15 * 60_000;

interface State {
  failures: number;
  open: boolean;
  /** While open: when the next probe may go. */
  nextProbeAt: number;
  /** While open: the time between the last probe and the next. */
  probeEvery: number;
}

export class Breaker {
  private readonly states = new Map<string, State>();
  /** Destinations that asked for no calls before a time (`Retry-After`). */
  private readonly holds = new Map<string, number>();

  /** Holds calls to a destination back until `until` (from its `Retry-After`), at most MAX_HOLD_MS. */
  hold(destination: string, until: number, now: number): void {
    this.holds.set(destination, Math.min(until, now + MAX_HOLD_MS));
  }

  /** When a destination asked to be called again, while that is still ahead; else undefined. */
  heldUntil(destination: string, now: number): number | undefined {
    const until = this.holds.get(destination);
    if (until === undefined) return undefined;
    if (now < until) return until;
    this.holds.delete(destination);
    return undefined;
  }

  /** Whether a call may be sent now (closed, or the next probe of an open breaker). */
  allow(destination: string, now: number): boolean {
    const s = this.states.get(destination);
    if (!s?.open) return true;
    if (now < s.nextProbeAt) return false;
    s.probeEvery = Math.min(MAX_PROBE_EVERY_MS, s.probeEvery * 2);
    s.nextProbeAt = now + s.probeEvery;
    return true;
  }

  /**
   * A probe `allow` let go made no request after all (a catalogue action refused the event before
   * sending, a copy was folded): it told nothing, so the next call may probe at once, at the same
   * spacing. Without this, probes spent on events that never reach the destination would keep an
   * open breaker from ever hearing an answer.
   */
  probeUnused(destination: string): void {
    const s = this.states.get(destination);
    if (!s?.open) return;
    s.probeEvery = Math.max(PROBE_EVERY_MS, s.probeEvery / 2);
    s.nextProbeAt = 0;
  }

  /** The outcome of a sent call: `answered` is any HTTP answer, even an error status. */
  record(destination: string, answered: boolean, now: number): void {
    if (answered) {
      this.states.delete(destination);
      return;
    }
    const s = this.state(destination);
    s.failures++;
    if (s.failures >= FAILURES_TO_OPEN) this.open(s, now);
  }

  /**
   * Opens the breaker now, without waiting for FAILURES_TO_OPEN timeouts: the calls in flight
   * have gone unanswered for longer than the destination ever takes (limiter.ts). The first
   * answer closes it as usual. Nothing changes when it is open already.
   */
  trip(destination: string, now: number): void {
    this.open(this.state(destination), now);
  }

  /** Whether calls are held back (apart from probes). */
  isOpen(destination: string): boolean {
    return this.states.get(destination)?.open ?? false;
  }

  /** Calls in a row without an answer (for the reason of a held-back attempt). */
  failures(destination: string): number {
    return this.states.get(destination)?.failures ?? 0;
  }

  private state(destination: string): State {
    let s = this.states.get(destination);
    if (s === undefined) {
      s = { failures: 0, open: false, nextProbeAt: 0, probeEvery: PROBE_EVERY_MS };
      this.states.set(destination, s);
    }
    return s;
  }

  private open(s: State, now: number): void {
    if (s.open) return;
    s.open = true;
    s.probeEvery = PROBE_EVERY_MS;
    s.nextProbeAt = now + PROBE_EVERY_MS;
  }
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The time a Google error body's `google.rpc.RetryInfo` detail asks for, from now: its
 * `retryDelay`, a protobuf Duration in JSON (`"30s"`, `"1.5s"`) (docs/platforms.md §6); undefined
 * when the body is not Google's error envelope or carries no such detail.
 */
export function retryInfoTime(body: string, now: number): number | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const details = (json as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details as { '@type'?: unknown; retryDelay?: unknown }[]) {
    if (d?.['@type'] !== RETRY_INFO || typeof d.retryDelay !== 'string') continue;
    const m = /^(\d+(?:\.\d{1,9})?)s$/.exec(d.retryDelay.trim());
    if (m) return now + Math.ceil(Number(m[1]) * 1000);
  }
  return undefined;
}

/**
 * The time a `Retry-After` header asks for, from now: delay-seconds or an HTTP date (RFC 9110);
 * undefined when absent or unreadable.
 */
export function retryAfterTime(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return now + Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date;
}
