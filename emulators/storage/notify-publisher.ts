/**
 * How the emulator's Pub/Sub notifications reach Pub/Sub: through Pub/Sub's own REST API
 * (`POST /v1/projects/<p>/topics/<t>:publish`) at the configured endpoint, as Cloud Storage's
 * service agent (a token minted for it with the access file's secret, when IAM is on), so the
 * Pub/Sub emulator's IAM decides whether it may publish, as Pub/Sub does in Google.
 *
 * A write never waits for this: `enqueue` only appends to a bounded in-memory queue, which one
 * loop drains in order, up to 100 messages of one topic per request. What it promises:
 * - at least once while the emulator runs: a failure Pub/Sub may recover from (no answer, a
 *   refused connection, 429, 5xx) is retried with backoff (0.1 s doubling to 5 s) until it is
 *   published; a retried request Pub/Sub did take publishes its messages twice;
 * - a notification Pub/Sub refuses for good (400, 401, 403: the agent may not publish, 404: no
 *   such topic) is dropped, and so is one arriving while `MAX_QUEUED` wait and those still
 *   queued when the emulator stops: each drop is counted and logged (one JSON line on stderr).
 * Cloud Storage promises at-least-once delivery to the topic; it keeps undelivered notifications
 * across its own failures, the emulator does not keep its queue across a restart.
 */

/** Cloud Storage's service agent locally: project number 0, as the emulator's buckets show it. */
export const STORAGE_SERVICE_AGENT = 'serviceAccount:service-0@gs-project-accounts.iam.gserviceaccount.com';

/** Notifications waiting at most; one more is dropped. */
export const MAX_QUEUED = 10_000;
const BATCH = 100;
const REQUEST_TIMEOUT_MS = 10_000;
const BACKOFF_FIRST_MS = 100;
const BACKOFF_MAX_MS = 5_000;

export interface PubSubMessage {
  /** Base64; absent for payload format NONE. */
  readonly data?: string;
  readonly attributes: Readonly<Record<string, string>>;
}

interface Pending {
  /** `projects/<p>/topics/<t>`. */
  readonly topic: string;
  readonly message: PubSubMessage;
}

export interface PublisherOptions {
  /** `host:port` (as `PUBSUB_EMULATOR_HOST` gives it) or a base URL. */
  readonly endpoint: string;
  /** The agent's bearer token, or undefined to send none (IAM off). */
  readonly token: () => string | undefined;
  readonly maxQueued?: number;
  /** One JSON object per line; stderr by default. */
  readonly log?: (line: Record<string, unknown>) => void;
}

export interface PublisherCounts {
  published: number;
  dropped: number;
  retries: number;
  queued: number;
}

/** `host:port` or a URL → the base URL of Pub/Sub's REST API. */
export function pubsubBaseUrl(endpoint: string): string {
  const url = endpoint.includes('://') ? endpoint : `http://${endpoint}`;
  return url.replace(/\/+$/, '');
}

type Outcome = { ok: true } | { ok: false; retry: boolean; why: string };

/** What Pub/Sub answered, as an outcome: retried unless Pub/Sub refuses for good. */
async function outcomeOf(res: Response): Promise<Outcome> {
  if (res.ok) {
    await res.arrayBuffer();
    return { ok: true };
  }
  const text = await res.text().catch(() => '');
  const message = /"message"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 200);
  const why = `HTTP ${res.status}: ${message}`;
  return { ok: false, retry: res.status === 429 || res.status >= 500, why };
}

export class NotificationPublisher {
  private readonly base: string;
  private readonly opts: PublisherOptions;
  private readonly max: number;
  private readonly log: (line: Record<string, unknown>) => void;
  private queue: Pending[] = [];
  private head = 0;
  private draining = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private readonly stop = new AbortController();
  private idle: (() => void)[] = [];
  readonly counts: PublisherCounts = { published: 0, dropped: 0, retries: 0, queued: 0 };

  constructor(opts: PublisherOptions) {
    this.opts = opts;
    this.base = pubsubBaseUrl(opts.endpoint);
    this.max = opts.maxQueued ?? MAX_QUEUED;
    this.log = opts.log ?? ((line) => process.stderr.write(`${JSON.stringify(line)}\n`));
  }

  /** Queues one notification; never waits, never throws. */
  enqueue(topic: string, message: PubSubMessage): void {
    if (this.closed || this.counts.queued >= this.max) {
      this.drop(1, topic, this.closed ? 'the emulator is stopping' : `over ${this.max} notifications wait`);
      return;
    }
    this.queue.push({ topic, message });
    this.counts.queued += 1;
    this.kick();
  }

  /** Resolves once nothing waits (tests); at once when the queue is empty. */
  settled(): Promise<void> {
    if (this.counts.queued === 0) return Promise.resolve();
    return new Promise((done) => this.idle.push(done));
  }

  /** Stops: what still waits is dropped (counted and logged). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.stop.abort();
    const left = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    this.counts.queued = 0;
    if (left.length > 0)
      this.drop(left.length, left[0]?.topic ?? '', 'the emulator stopped before Pub/Sub took them');
    this.wake();
  }

  private kick(): void {
    if (this.draining || this.timer !== undefined || this.closed) return;
    this.draining = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    while (this.counts.queued > 0 && !this.closed) {
      const first = this.queue[this.head] as Pending;
      const batch: Pending[] = [];
      for (let i = this.head; i < this.queue.length && batch.length < BATCH; i++) {
        const p = this.queue[i] as Pending;
        if (p.topic !== first.topic) break;
        batch.push(p);
      }
      const out = await this.send(first.topic, batch);
      if (this.closed) break;
      if (!out.ok && out.retry) {
        this.attempt += 1;
        this.counts.retries += 1;
        const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (this.attempt - 1));
        if (this.attempt === 1 || wait === BACKOFF_MAX_MS)
          this.log({
            severity: 'WARNING',
            message: `storage notifications: publishing to ${first.topic} failed (${out.why}); retrying in ${wait} ms`,
          });
        this.draining = false;
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.kick();
        }, wait);
        return;
      }
      this.attempt = 0;
      this.take(batch.length);
      if (out.ok) this.counts.published += batch.length;
      else this.drop(batch.length, first.topic, out.why);
    }
    this.draining = false;
    this.wake();
  }

  private take(n: number): void {
    this.head += n;
    this.counts.queued -= n;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private wake(): void {
    if (this.counts.queued > 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const done of waiting) done();
  }

  private drop(n: number, topic: string, why: string): void {
    this.counts.dropped += n;
    this.log({
      severity: 'ERROR',
      message: `storage notifications: dropped ${n} for ${topic} (${why}); ${this.counts.dropped} dropped since start`,
      dropped: this.counts.dropped,
    });
  }

  private async send(topic: string, batch: readonly Pending[]): Promise<Outcome> {
    try {
      const res = await this.post(`${topic}:publish`, { messages: batch.map((p) => p.message) });
      return await outcomeOf(res);
    } catch (err) {
      return {
        ok: false,
        retry: true,
        why: err instanceof Error ? ((err.cause as Error)?.message ?? err.message) : String(err),
      };
    }
  }

  /** POST `/v1/<path>` with the agent's token. */
  post(path: string, body: unknown): Promise<Response> {
    const token = this.opts.token();
    return fetch(`${this.base}/v1/${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
  }

  /**
   * Whether the agent may publish to `topic` (`projects/<p>/topics/<t>`): Pub/Sub's
   * testIamPermissions as the agent. `missing` covers a topic that does not exist; `unreachable`
   * a Pub/Sub that did not answer.
   */
  async mayPublish(topic: string): Promise<'yes' | 'missing' | 'unreachable'> {
    try {
      const res = await this.post(`${topic}:testIamPermissions`, { permissions: ['pubsub.topics.publish'] });
      if (res.status === 429 || res.status >= 500) {
        await res.arrayBuffer();
        return 'unreachable';
      }
      if (!res.ok) {
        await res.arrayBuffer();
        return 'missing';
      }
      const body = (await res.json()) as { permissions?: unknown };
      return Array.isArray(body.permissions) && body.permissions.includes('pubsub.topics.publish')
        ? 'yes'
        : 'missing';
    } catch {
      return 'unreachable';
    }
  }
}
