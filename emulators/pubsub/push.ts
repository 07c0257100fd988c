/**
 * Push delivery: one worker per push subscription (and, through PushManager, one writer per
 * BigQuery or Cloud Storage subscription), fed by the engine like any consumer. Up to
 * 1000 requests in flight per subscription over a keep-alive agent; with ordering enabled, the
 * messages of one key go one at a time, in order. 102/200/201/202/204 ack; any other answer, a
 * network error, or no answer within ackDeadlineSeconds nacks (the engine applies the backoff).
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Engine } from './engine.ts';
import { BigQueryWriter, checkExport, type ExportEndpoints, endpointUrl, StorageWriter } from './exports.ts';
import { PushHttpClient } from './http-client.ts';
import type { Consumer, Subscription } from './subscription.ts';
import type { Delivery } from './types.ts';

const ACK_CODES = new Set([102, 200, 201, 202, 204]);
const MAX_IN_FLIGHT = 1000;
/**
 * Google's push window ("Push subscriptions", delivery rate): Pub/Sub limits the concurrent push
 * requests of a subscription with a slow-start algorithm that grows the window on every successful
 * delivery (so exponentially while acks come back) and shrinks it on every failure. Here: one more
 * per ack up to MAX_IN_FLIGHT, halved (at least 1) per nack, error status or timeout. A message
 * the window holds back stays ready and is not an attempt, so an endpoint that refuses most pushes
 * does not use up every message's attempts. One difference, on purpose: Google starts a new
 * subscription's window at a single digit; the twin's subscriptions are made afresh at every start
 * of the local environment and of each benchmark, which would then measure the ramp rather than
 * the pipeline, so a new window starts open and only failures close it.
 */
export const PUSH_WINDOW_START = MAX_IN_FLIGHT;

/**
 * Signs push ID tokens with a key made at start-up (RS256). The public key is served at
 * `/oauth2/v1/certs` in Google's `{kid: pem}` shape, so a receiver can verify the token with
 * google-auth-library pointed at the emulator. Production Google tokens are not reproduced.
 */
export class TokenSigner {
  private key: KeyObject | undefined;
  private pem = '';
  readonly kid = randomUUID().replaceAll('-', '');

  private ensure(): KeyObject {
    if (!this.key) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      this.key = createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' }));
      this.pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    }
    return this.key;
  }

  certs(): Record<string, string> {
    this.ensure();
    return { [this.kid]: this.pem };
  }

  private readonly issued = new Map<string, { token: string; until: number }>();

  /**
   * An ID token for `audience` and `email`. One RSA signature costs about a millisecond, more
   * than the rest of a push, so a token is reused for 50 of its 60 minutes.
   */
  token(audience: string, email: string): string {
    const cacheKey = `${audience}\n${email}`;
    const hit = this.issued.get(cacheKey);
    if (hit && hit.until > Date.now()) return hit.token;
    const token = this.sign(audience, email);
    if (this.issued.size > 1000) this.issued.clear();
    this.issued.set(cacheKey, { token, until: Date.now() + 50 * 60_000 });
    return token;
  }

  private sign(audience: string, email: string): string {
    const key = this.ensure();
    const now = Math.floor(Date.now() / 1000);
    const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
    const header = b64({ alg: 'RS256', kid: this.kid, typ: 'JWT' });
    const payload = b64({
      iss: 'https://accounts.google.com',
      aud: audience,
      azp: email,
      sub: email,
      email,
      email_verified: true,
      iat: now,
      exp: now + 3600,
    });
    const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), key).toString('base64url');
    return `${header}.${payload}.${signature}`;
  }
}

let lastTime = Number.NaN;
let lastIso = '';

/**
 * The classic push body of docs/google-wire.md §3. Written out as text (the same bytes JSON.stringify
 * gives for the object form, which the tests check): it is built once per push.
 */
export function pushBody(subscription: string, d: Delivery): string {
  const m = d.message;
  if (m.publishTime !== lastTime) {
    // The messages of one publish share their time: format it once.
    lastTime = m.publishTime;
    lastIso = new Date(m.publishTime).toISOString();
  }
  let hasAttributes = false;
  for (const _ in m.attributes) {
    hasAttributes = true;
    break;
  }
  const id = String(m.id);
  let out = '{"message":{';
  if (hasAttributes) out += `"attributes":${JSON.stringify(m.attributes)},`;
  out += `"data":"${m.data.toString('base64')}","messageId":"${id}","message_id":"${id}","publishTime":"${lastIso}","publish_time":"${lastIso}"`;
  if (m.orderingKey) out += `,"orderingKey":${JSON.stringify(m.orderingKey)}`;
  return `${out}},"subscription":${JSON.stringify(subscription)},"deliveryAttempt":${d.attempt}}`;
}

/** An HTTP header name (a token) and a value without line breaks: what may be written as is. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * Payload unwrapping with `writeMetadata` (docs/google-wire.md §3): the message's metadata as
 * `x-goog-pubsub-*` headers and each attribute as a header of its own name. An attribute that
 * cannot be a header (a name that is not a token, a value with a line break) is left out.
 */
export function unwrappedHeaders(subscription: string, d: Delivery): Record<string, string> {
  const m = d.message;
  const out: Record<string, string> = {};
  for (const k in m.attributes) {
    const v = m.attributes[k] as string;
    if (HEADER_NAME.test(k) && HEADER_VALUE.test(v) && !/^(content-length|host|connection)$/i.test(k))
      out[k] = v;
  }
  out['x-goog-pubsub-subscription-name'] = subscription;
  out['x-goog-pubsub-message-id'] = String(m.id);
  out['x-goog-pubsub-publish-time'] = new Date(m.publishTime).toISOString();
  out['x-goog-pubsub-delivery-attempt'] = String(d.attempt);
  if (m.orderingKey && HEADER_VALUE.test(m.orderingKey)) out['x-goog-pubsub-ordering-key'] = m.orderingKey;
  return out;
}

/**
 * Push config attribute that switches a subscription to Eventarc-style binary CloudEvents
 * (`"x-emulator-cloudevents": "binary"`); an emulator extension, ignored by Google.
 */
export const CLOUDEVENTS_ATTRIBUTE = 'x-emulator-cloudevents';

export function cloudEventHeaders(topic: string, d: Delivery): Record<string, string> {
  return {
    'ce-id': String(d.message.id),
    'ce-source': `//pubsub.googleapis.com/${topic}`,
    'ce-specversion': '1.0',
    'ce-type': 'google.cloud.pubsub.topic.v1.messagePublished',
    'ce-time': new Date(d.message.publishTime).toISOString(),
  };
}

export class PushWorker implements Consumer {
  private window = PUSH_WINDOW_START;
  /** The push window: how many pushes may be in flight now. */
  get maxMessages(): number {
    return Math.floor(this.window);
  }
  readonly maxBytes = 0;
  outstanding = 0;
  outstandingBytes = 0;
  private sub: Subscription;
  private readonly engine: Engine;
  private readonly signer: TokenSigner;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 128 });
  /** Plain-http endpoints (local functions) go through the lean client. */
  private readonly client = new PushHttpClient(128);
  private endpoint = '';
  private url: URL | undefined;
  private stopped = false;
  private readonly inFlight = new Set<http.ClientRequest>();

  constructor(engine: Engine, sub: Subscription, signer: TokenSigner) {
    this.engine = engine;
    this.sub = sub;
    this.signer = signer;
  }

  update(sub: Subscription): void {
    this.sub = sub;
  }

  leaseMs(): number {
    // A little longer than the HTTP timeout, so the timeout (not the lease) decides the nack.
    return this.sub.resource.ackDeadlineSeconds * 1000 + 2000;
  }

  deliver(batch: Delivery[]): void {
    if (!this.sub.ordered) {
      for (const d of batch) void this.deliverOne(d);
      return;
    }
    const chains = new Map<string, Delivery[]>();
    for (const d of batch) {
      const key = d.message.orderingKey;
      if (!key) {
        void this.deliverOne(d);
        continue;
      }
      const chain = chains.get(key) ?? [];
      chain.push(d);
      chains.set(key, chain);
    }
    for (const chain of chains.values()) void this.deliverChain(chain);
  }

  private async deliverChain(chain: Delivery[]): Promise<void> {
    for (const d of chain) {
      // A nack releases the rest of the key's messages in the engine; stop sending them.
      if (!(await this.deliverOne(d))) return;
    }
  }

  private async deliverOne(d: Delivery): Promise<boolean> {
    const sub = this.sub;
    const ok = this.stopped ? false : await this.send(sub, d);
    this.window = ok ? Math.min(MAX_IN_FLIGHT, this.window + 1) : Math.max(1, this.window / 2);
    try {
      if (ok) this.ack(sub.name, d.ackId);
      else this.engine.nack(sub, d.ackId);
    } catch {
      // The subscription was deleted meanwhile: nothing left to settle.
    }
    return ok;
  }

  private acks: string[] = [];
  private acksFor = '';

  /**
   * Acks of one event-loop turn go to the engine together: one log record (and one share of a
   * group commit) per turn instead of one per pushed message.
   */
  private ack(name: string, ackId: string): void {
    if (this.acks.length > 0 && name !== this.acksFor) this.flushAcks();
    this.acksFor = name;
    this.acks.push(ackId);
    if (this.acks.length === 1) setImmediate(() => this.flushAcks());
  }

  private flushAcks(): void {
    if (this.acks.length === 0) return;
    const ids = this.acks;
    this.acks = [];
    // A deleted subscription has nothing left to settle.
    this.engine.acknowledge(this.acksFor, ids).catch(() => undefined);
  }

  private send(sub: Subscription, d: Delivery): Promise<boolean> {
    const cfg = sub.resource.pushConfig;
    const endpoint = cfg.pushEndpoint;
    if (!endpoint) return Promise.resolve(false);
    const body = cfg.noWrapper ? d.message.data : pushBody(sub.name, d);
    const headers: Record<string, string | number> = {
      'content-type': cfg.noWrapper ? 'application/octet-stream' : 'application/json',
      'content-length': Buffer.byteLength(body),
      'user-agent': 'APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)',
    };
    if (cfg.noWrapper?.writeMetadata) Object.assign(headers, unwrappedHeaders(sub.name, d));
    if (cfg.attributes?.[CLOUDEVENTS_ATTRIBUTE] === 'binary') {
      // Eventarc's binary-mode CloudEvent (docs/google-wire.md §3): same body, ce-* headers.
      Object.assign(headers, cloudEventHeaders(sub.resource.topic, d));
    }
    if (cfg.oidcToken) {
      const aud = cfg.oidcToken.audience || endpoint;
      headers['authorization'] = `Bearer ${this.signer.token(aud, cfg.oidcToken.serviceAccountEmail)}`;
    }
    if (endpoint !== this.endpoint || !this.url) {
      this.url = new URL(endpoint);
      this.endpoint = endpoint;
    }
    const url = this.url;
    const isHttps = url.protocol === 'https:';
    const timeoutMs = sub.resource.ackDeadlineSeconds * 1000;
    if (url.protocol === 'http:') {
      return this.client.post(url, headers, body, timeoutMs).then((status) => ACK_CODES.has(status));
    }
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const done = (ok: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(req);
        resolve(ok);
      };
      const req = (isHttps ? https : http).request(
        url,
        { method: 'POST', headers, agent: isHttps ? this.httpsAgent : this.httpAgent },
        (res) => {
          res.resume();
          res.on('end', () => done(ACK_CODES.has(res.statusCode ?? 0)));
          res.on('error', () => done(false));
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        done(false);
      }, timeoutMs);
      this.inFlight.add(req);
      req.on('information', (info) => {
        if (info.statusCode === 102) {
          req.destroy();
          done(true);
        }
      });
      req.on('error', () => done(false));
      req.end(body);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const req of this.inFlight) req.destroy();
    this.client.destroy();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** A consumer the emulator runs for a subscription: a push worker or an export writer. */
interface Worker extends Consumer {
  update(sub: Subscription): void;
  stop(): void;
}

type WorkerKind = 'push' | 'bigquery' | 'storage';

const kindOf = (sub: Subscription | undefined): WorkerKind | undefined => {
  if (!sub || sub.resource.detached) return undefined;
  if (sub.isPush) return 'push';
  if (sub.resource.bigqueryConfig) return 'bigquery';
  if (sub.resource.cloudStorageConfig) return 'storage';
  return undefined;
};

/**
 * Keeps one worker per push, BigQuery or Cloud Storage subscription in step with the engine's
 * subscriptions (exports.ts writes the last two).
 */
export class PushManager {
  private readonly workers = new Map<string, { kind: WorkerKind; worker: Worker }>();
  private readonly engine: Engine;
  private readonly exports: ExportEndpoints;
  readonly signer = new TokenSigner();

  constructor(engine: Engine, exports: ExportEndpoints = {}) {
    this.engine = engine;
    this.exports = exports;
    engine.pushHooks = { onSubscriptionChanged: (name, sub) => this.sync(name, sub) };
    engine.exportCheck = (resource) => checkExport(exports, resource);
    for (const [name, sub] of engine.subs) this.sync(name, sub);
  }

  private make(kind: WorkerKind, sub: Subscription): Worker | undefined {
    if (kind === 'push') return new PushWorker(this.engine, sub, this.signer);
    const base = kind === 'bigquery' ? this.exports.bigquery : this.exports.storage;
    // Without the endpoint (a log written by an emulator started with it), messages wait.
    if (!base) return undefined;
    return kind === 'bigquery'
      ? new BigQueryWriter(this.engine, sub, endpointUrl(base))
      : new StorageWriter(this.engine, sub, endpointUrl(base));
  }

  private sync(name: string, sub: Subscription | undefined): void {
    const current = this.workers.get(name);
    const kind = kindOf(sub);
    if (current && sub && current.kind === kind) {
      current.worker.update(sub);
      this.engine.scheduleDispatch(sub);
      return;
    }
    if (current) {
      this.workers.delete(name);
      if (sub) this.engine.detach(sub, current.worker);
      current.worker.stop();
    }
    if (!sub || !kind) return;
    const worker = this.make(kind, sub);
    if (!worker) return;
    this.workers.set(name, { kind, worker });
    this.engine.attach(sub, worker);
  }

  stop(): void {
    for (const w of this.workers.values()) w.worker.stop();
    this.workers.clear();
  }
}
