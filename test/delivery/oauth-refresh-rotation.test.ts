/**
 * OAuth refresh tokens that survive (issue #100): two OAuth client processes, each refreshing
 * as forward-catalog does (refresh-rotation.ts over adapters/secret-versions.ts), against a token
 * endpoint that rotates refresh tokens (the OAuth stand-in, `rotate_refresh_tokens`) and the
 * Secret Manager emulator with IAM enforced, as forward-catalog's account with the grants the
 * program declares on the refresh-token secret (Secret Accessor and Secret Version Manager). No
 * refresh is answered invalid_grant, every rotated token is written back as a version, and the
 * newest version is the token the endpoint takes. Without the claim (the rotated token kept in
 * each process's memory, as before) the second process is refused. Without Version Manager the
 * emulator refuses the claim, naming the permission.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AccessFile, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { secretVersions } from '../../adapters/secret-versions.ts';
import { SecretAccessDenied, secretManagerCall } from '../../adapters/secrets.ts';
import { refreshUnderClaim } from '../../core/platforms/segment-action/refresh-rotation.ts';
import {
  type SecretManagerEmulator,
  startSecretManagerEmulator,
} from '../../emulators/secret-manager/server.ts';
import { createOAuthStandIn } from '../../local/platforms/oauth.ts';

const PROJECT = 'shop-events-prod';
const CATALOG = `serviceAccount:eventbus-forward-catalog@${PROJECT}.iam.gserviceaccount.com`;
const READER = `serviceAccount:eventbus-forward@${PROJECT}.iam.gserviceaccount.com`;
const WORKER = join(import.meta.dirname, '..', 'support', 'oauth-rotation-worker.ts');
const ROUNDS = 4;

interface Tally {
  readonly ok: number;
  readonly invalidGrant: number;
  readonly other: readonly string[];
}

describe('delivery: OAuth refresh tokens rotated by two instances, kept in Secret Manager', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'oauth-rotation-'));
  const oauth = createOAuthStandIn();
  let sm: SecretManagerEmulator;
  let tokens: Server;
  let tokenUrl = '';
  const as = (member: string) => `http://127.0.0.1:${sm.identityPorts.get(member)}`;
  const owner = (method: string, path: string, body?: unknown) =>
    fetch(`${sm.url}/v1/projects/${PROJECT}/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> }));

  /** A secret holding `refresh`, registered with a rotating client of that id. */
  async function connection(id: string): Promise<void> {
    oauth.register({
      client_id: id,
      client_secret: 's',
      refresh_token: `${id}-r0`,
      rotate_refresh_tokens: true,
    });
    assert.equal(
      (await owner('POST', `secrets?secretId=${id}`, { replication: { automatic: {} } })).status,
      200,
    );
    const data = Buffer.from(`${id}-r0`).toString('base64');
    assert.equal((await owner('POST', `secrets/${id}:addVersion`, { payload: { data } })).status, 200);
  }

  function worker(secret: string, mode: 'claim' | 'memory'): Promise<Tally> {
    const child = spawn(process.execPath, [WORKER], {
      env: {
        ...process.env,
        SM_URL: as(CATALOG),
        PROJECT,
        SECRET: secret,
        TOKEN_URL: tokenUrl,
        CLIENT_ID: secret,
        CLIENT_SECRET: 's',
        ROUNDS: String(ROUNDS),
        MODE: mode,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    return new Promise((resolve, reject) =>
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out) as Tally) : reject(new Error(`worker exited ${code}: ${out}`)),
      ),
    );
  }

  const tokenTakes = (refresh: string, client: string) =>
    oauth.token({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: `grant_type=refresh_token&refresh_token=${refresh}&client_id=${client}&client_secret=s`,
    }).status === 200;

  before(async () => {
    const file = join(dir, 'access.json');
    const bindings = (secret: string) => ({
      resource: `projects/${PROJECT}/secrets/${secret}`,
      bindings: [
        { role: 'roles/secretmanager.secretAccessor', members: [CATALOG, READER] },
        // What infra/environment.ts grants forward-catalog on a rotated refresh token's secret.
        { role: 'roles/secretmanager.secretVersionManager', members: [CATALOG] },
      ],
    });
    const access: AccessFile = {
      tokenSecret: newTokenSecret(),
      policies: ['claimed', 'in-memory'].map(bindings),
    };
    writeFileSync(file, JSON.stringify(access));
    sm = await startSecretManagerEmulator({
      port: 0,
      dataDir: join(dir, 'sm'),
      fsync: 'none',
      iam: { file, identities: [CATALOG, READER].map((member) => ({ member, port: 0 })) },
    });
    tokens = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
        );
        const a = oauth.token({ method: req.method ?? 'GET', headers, raw });
        res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
        res.end(JSON.stringify(a.body ?? {}));
      });
    });
    await new Promise<void>((r) => tokens.listen(0, '127.0.0.1', r));
    tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`;
    await connection('claimed');
    await connection('in-memory');
  });
  after(async () => {
    await new Promise((r) => tokens.close(r));
    await sm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two processes refreshing in parallel under the claim: no invalid_grant, every rotation written back', async () => {
    const tallies = await Promise.all([worker('claimed', 'claim'), worker('claimed', 'claim')]);
    assert.deepEqual(tallies, [
      { ok: ROUNDS, invalidGrant: 0, other: [] },
      { ok: ROUNDS, invalidGrant: 0, other: [] },
    ]);
    const list = await owner('GET', 'secrets/claimed/versions');
    const listed = list.json['versions'] as { state: string }[];
    assert.equal(listed.length, 1 + 2 * ROUNDS, 'the first token and one version per refresh');
    assert.equal(listed[0]?.state, 'ENABLED', 'the newest version is enabled: no claim left behind');
    const newest = await owner('GET', 'secrets/claimed/versions/latest:access');
    const payload = newest.json['payload'] as { data: string };
    const token = Buffer.from(payload.data, 'base64').toString();
    assert.ok(tokenTakes(token, 'claimed'), 'the newest version is the token the endpoint takes now');
  });

  it('without the claim (rotated tokens in each process’s memory), the second instance is answered invalid_grant', async () => {
    const tallies = await Promise.all([worker('in-memory', 'memory'), worker('in-memory', 'memory')]);
    assert.ok(
      tallies.reduce((n, t) => n + t.invalidGrant, 0) >= 1,
      `both started from one token, one of them must be refused: ${JSON.stringify(tallies)}`,
    );
  });

  it('the emulator enforces the grant: an account with Secret Accessor alone cannot claim, and is told which permission', async () => {
    const versions = secretVersions(PROJECT, 'claimed', secretManagerCall(undefined, as(READER)));
    const clock = { now: Date.now, sleep: () => Promise.resolve() };
    await assert.rejects(
      refreshUnderClaim('claimed', versions, () => Promise.resolve({}), clock),
      (err: unknown) => err instanceof SecretAccessDenied && err.permission === 'secretmanager.versions.get',
    );
  });
});
