/**
 * A loopback Secret Manager for one secret, over real HTTP: `versions/{n|latest}:access`,
 * `:addVersion` (refusing a payload over 64 KiB with 400 like the service), and
 * `versions/{n}:destroy` / `:disable`. `latest` is the most recently created version whatever
 * its state, and accessing a version that is not ENABLED is 400 FAILED_PRECONDITION, as the
 * service answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizedRequest } from '../../gateway/token-store.ts';

export interface FakeVersion {
  state: 'ENABLED' | 'DISABLED' | 'DESTROYED';
  /** base64 payload; gone once destroyed. */
  data?: string;
}

export interface FakeSecretManager {
  readonly url: string;
  /** versions[0] is version 1. */
  readonly versions: FakeVersion[];
  /** `METHOD path` of every request, in order. */
  readonly seen: string[];
  /** A request function for secretTokenStore (fetch, JSON bodies). */
  readonly request: AuthorizedRequest;
  /** The decoded payload of the latest version. */
  latestText(): string | undefined;
  close(): Promise<void>;
}

export const PAYLOAD_LIMIT = 65_536;

const fail = (code: number, status: string, message: string) =>
  JSON.stringify({ error: { code, status, message } });

/** Starts the fake on 127.0.0.1, port 0, serving `projects/{project}/secrets/{secret}`. */
export async function startFakeSecretManager(project: string, secret: string): Promise<FakeSecretManager> {
  const versions: FakeVersion[] = [];
  const seen: string[] = [];
  const prefix = `/v1/projects/${project}/secrets/${secret}`;
  const nameOf = (n: number) => `projects/${project}/secrets/${secret}/versions/${n}`;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push(`${req.method} ${path}`);
      const send = (status: number, body: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      if (req.method === 'POST' && path === `${prefix}:addVersion`) {
        const data = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: { data: string } })
          .payload.data;
        if (Buffer.from(data, 'base64').length > PAYLOAD_LIMIT) {
          send(400, fail(400, 'INVALID_ARGUMENT', 'Secret Payload cannot be larger than 64KiB.'));
          return;
        }
        versions.push({ state: 'ENABLED', data });
        send(200, JSON.stringify({ name: nameOf(versions.length), state: 'ENABLED' }));
        return;
      }
      const m = new RegExp(`^${prefix}/versions/(latest|\\d+):(access|destroy|disable)$`).exec(path);
      if (!m) {
        send(404, fail(404, 'NOT_FOUND', `no route ${path}`));
        return;
      }
      const n = m[1] === 'latest' ? versions.length : Number(m[1]);
      const version = versions[n - 1];
      if (!version) {
        send(404, fail(404, 'NOT_FOUND', `Secret Version [${nameOf(n)}] not found.`));
        return;
      }
      if (m[2] === 'access' && req.method === 'GET') {
        if (version.state !== 'ENABLED') {
          send(400, fail(400, 'FAILED_PRECONDITION', `${nameOf(n)} is in ${version.state} state.`));
          return;
        }
        send(200, JSON.stringify({ name: nameOf(n), payload: { data: version.data } }));
        return;
      }
      if (req.method !== 'POST') {
        send(404, fail(404, 'NOT_FOUND', `no route ${req.method} ${path}`));
        return;
      }
      if (version.state === 'DESTROYED') {
        send(400, fail(400, 'FAILED_PRECONDITION', `${nameOf(n)} is in DESTROYED state.`));
        return;
      }
      if (m[2] === 'destroy') {
        version.state = 'DESTROYED';
        delete version.data;
      } else version.state = 'DISABLED';
      send(200, JSON.stringify({ name: nameOf(n), state: version.state }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    versions,
    seen,
    request: async ({ url: target, method, data }) => {
      const res = await fetch(target, {
        method,
        ...(data === undefined
          ? {}
          : { body: JSON.stringify(data), headers: { 'content-type': 'application/json' } }),
      });
      return { status: res.status, data: await res.json() };
    },
    latestText() {
      const data = versions.at(-1)?.data;
      return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
