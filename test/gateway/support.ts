/** Test helpers: a gateway on port 0 with a file token store in a temp dir, a fake or real publisher. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventPublisher, OutgoingMessage } from '../../adapters/publisher.ts';
import { PublishUnavailableError } from '../../adapters/publisher.ts';
import { startCredentialCache } from '../../gateway/auth.ts';
import { issueKey, issueToken } from '../../gateway/credentials.ts';
import type { GoogleIdentity } from '../../gateway/google-identity.ts';
import { openapiDocument } from '../../gateway/openapi.ts';
import { createGateway, type GatewayDeps } from '../../gateway/server.ts';
import { fileTokenStore, type TokenStore } from '../../gateway/token-store.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import {
  type CertificateServer,
  type SigningCertificate,
  serveCertificate,
  sharedSigningCertificate,
} from '../support/signing-certificate.ts';

export const ORIGIN = 'https://shop.example';

export const baseSettings = (over: Partial<Settings> = {}): Settings => ({
  name: 'test',
  project: 'test-project',
  region: 'europe-west1',
  topics: ['backend_events'],
  producers: { origins: [ORIGIN, 'http://localhost:8080'] },
  ...over,
});

/** A publisher that records what it was asked to publish, or fails on demand. */
export class FakePublisher implements EventPublisher {
  readonly calls: { topic: string; messages: readonly OutgoingMessage[] }[] = [];
  mode: 'ok' | 'unavailable' = 'ok';
  #next = 1;
  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<string[]> {
    if (this.mode === 'unavailable') throw new PublishUnavailableError('bus down', 2);
    this.calls.push({ topic, messages });
    return messages.map(() => String(this.#next++));
  }
  get published(): number {
    return this.calls.reduce((n, c) => n + c.messages.length, 0);
  }
  async close(): Promise<void> {}
}

export interface TestGateway {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly store: TokenStore;
  /** publish:* token. */
  readonly token: string;
  /** A write key bound to ORIGIN. */
  readonly key: string;
  mint(scopes: string[], extra?: { expiresAt?: Date; rate?: number }): Promise<string>;
  /** A write key bound to ORIGIN, with an optional event list and rate. */
  mintKey(extra?: { events?: string[]; rate?: number; server?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestGateway(opts: {
  settings?: Settings;
  publisher: EventPublisher;
  google?: GoogleIdentity;
  clock?: () => number;
  bodyTimeoutMs?: number;
  log?: (entry: Record<string, unknown>) => void;
  definitions?: GatewayDeps['definitions'];
  translators?: GatewayDeps['translators'];
  secrets?: GatewayDeps['secrets'];
  refusals?: GatewayDeps['refusals'];
  fetch?: GatewayDeps['fetch'];
  /** As on Cloud Run: the visitor's address from X-Forwarded-For; `edgeSecret`: EVENTBUS_EDGE_SECRET. */
  trustProxy?: boolean;
  edgeSecret?: string;
}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const store = fileTokenStore(join(dir, 'tokens.json'));
  const now = new Date();
  const mint = (scopes: string[], extra: { expiresAt?: Date; rate?: number } = {}) =>
    store.update((set) => {
      const r = issueToken(
        set,
        {
          scopes,
          ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}),
          rateLimitPerSecond: extra.rate ?? 100_000,
        },
        randomBytes,
        now,
      );
      return { set: r.set, result: r.secret };
    });
  const token = await mint(['publish:*']);
  const mintKey = (extra: { events?: string[]; rate?: number; server?: boolean } = {}) =>
    store.update((set) => {
      const r = issueKey(
        set,
        {
          origins: [ORIGIN],
          rateLimitPerSecond: extra.rate ?? 100_000,
          ...(extra.events ? { events: extra.events } : {}),
          ...(extra.server ? { server: true } : {}),
        },
        randomBytes,
        now,
      );
      return { set: r.set, result: r.secret };
    });
  const key = await mintKey();
  const credentials = await startCredentialCache(store, () => {}, Date.now, 0);
  const settings = opts.settings ?? baseSettings();
  const deps: GatewayDeps = {
    publisher: opts.publisher,
    credentials,
    newId: () => crypto.randomUUID(),
    ...(opts.google ? { google: opts.google } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.definitions ? { definitions: opts.definitions } : {}),
    ...(opts.translators ? { translators: opts.translators } : {}),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    ...(opts.refusals ? { refusals: opts.refusals } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  };
  const server: Server = createGateway(
    {
      settings,
      project: settings.project,
      topics: ['events', ...(settings.topics ?? [])],
      openapi: openapiDocument(),
      ...(opts.bodyTimeoutMs ? { bodyTimeoutMs: opts.bodyTimeoutMs } : {}),
      ...(opts.trustProxy ? { trustProxy: true } : {}),
      ...(opts.edgeSecret ? { edgeSecret: opts.edgeSecret } : {}),
    },
    deps,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    store,
    token,
    key,
    mint,
    mintKey,
    async close() {
      credentials.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: {
    messageIds?: string[];
    error?: { code: number; status: string; message: string; details?: unknown[] };
  };
}

/** POSTs JSON (or raw bytes) and returns status, headers and the parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  raw = false,
): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw ? (body as BodyInit) : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

/** The field paths of a BadRequest detail in an error answer. */
export function fieldsOf(a: Answer): string[] {
  const bad = (a.body.error?.details ?? []).find(
    (d) => (d as { '@type': string })['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  ) as { fieldViolations: { field: string }[] } | undefined;
  return bad?.fieldViolations.map((v) => v.field) ?? [];
}

/** Our error code (google.rpc.ErrorInfo.reason) of an error answer. */
export function reasonOf(a: Answer): string | undefined {
  const info = (a.body.error?.details ?? []).find(
    (d) => (d as { '@type': string })['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  ) as { reason: string } | undefined;
  return info?.reason;
}

/** A registry of fixed translators (no bucket): `{ name: spec }`. */
export function fixedTranslators(specs: Record<string, unknown>): NonNullable<GatewayDeps['translators']> {
  return {
    get: async (name) =>
      Object.hasOwn(specs, name) ? { name, version: '1', spec: specs[name] as TranslatorSpec } : undefined,
  };
}

/** A gateway with a fake publisher whose log lines are kept, and the refusal records among them. */
export async function loggingGateway(
  opts: Omit<Parameters<typeof startTestGateway>[0], 'publisher' | 'log'>,
) {
  const pub = new FakePublisher();
  const logged: Record<string, unknown>[] = [];
  const g = await startTestGateway({ ...opts, publisher: pub, log: (e) => logged.push(e) });
  const refusals = () =>
    logged.flatMap((e) => (e['refusal'] ? [e['refusal'] as Record<string, unknown>] : []));
  return { g, pub, logged, refusals };
}

/** What certificateGateway's hooks set up, fresh for each test (the key and server for the suite). */
export interface CertificateGateway {
  pair: SigningCertificate;
  server: CertificateServer;
  /** The certificate URLs the gateway fetched, in order. */
  fetched: string[];
  g: Awaited<ReturnType<typeof loggingGateway>>;
}

/**
 * Mocha hooks for a suite of a certificate-signed sender (SNS, PayPal): a self-made key and
 * certificate served at `certPath` on a loopback port, and for each test a gateway with the one
 * translator `name`, whose certificate fetch maps the vendor's `host` (only) to that server. The
 * gateway pins the URL as the sender gave it before it fetches: the host list is not widened.
 */
export function certificateGateway(
  name: string,
  spec: unknown,
  host: string,
  certPath: string,
): CertificateGateway {
  const ctx = { fetched: [] } as unknown as CertificateGateway;
  before(async () => {
    ctx.pair = sharedSigningCertificate(0);
    ctx.server = await serveCertificate(ctx.pair.cert, certPath);
  });
  after(() => ctx.server.close());
  beforeEach(async () => {
    ctx.server.hits = [];
    ctx.server.down = false;
    ctx.fetched = [];
    ctx.g = await loggingGateway({
      translators: fixedTranslators({ [name]: spec }),
      fetch: ctx.server.fetchFor(host, ctx.fetched),
    });
  });
  afterEach(() => ctx.g.g.close());
  return ctx;
}
