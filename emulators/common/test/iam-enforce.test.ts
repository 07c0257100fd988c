/**
 * What the emulators share under `--iam`: local tokens (signed, expiring), who a request's caller
 * is, the check against the access file (re-read when it changes), `--identity` parsing, and the
 * identity listeners that tell which member a connection is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { InvalidArgumentError } from 'commander';
import {
  type AccessFile,
  denialInfo,
  denialSuffix,
  Enforcement,
  identityOption,
  listenAsIdentities,
  mintToken,
  newTokenSecret,
  OWNER,
  verifyToken,
} from '../iam-enforce.ts';

const SA = 'serviceAccount:eventbus-store@p.iam.gserviceaccount.com';
const OTHER = 'serviceAccount:eventbus-studio@p.iam.gserviceaccount.com';
const BUCKET = 'projects/_/buckets/reg';
const OBJECT_TYPE = 'storage.googleapis.com/Object';

const get = (name: string) => ({
  permission: 'storage.objects.get',
  resource: `${BUCKET}/objects/${name}`,
  resourceType: OBJECT_TYPE,
});

describe('local tokens', () => {
  const secret = newTokenSecret();

  it('verifies a minted token as its member until it expires', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const token = mintToken(secret, SA, 60, now);
    assert.match(token, /^ya29\.local\./);
    assert.deepEqual(verifyToken(secret, token, now + 59_000), { ok: true, member: SA });
    assert.deepEqual(verifyToken(secret, token, now + 60_000), { ok: false, reason: 'expired' });
  });

  it('refuses a tampered token, another secret’s, and what is no token of ours', () => {
    const token = mintToken(secret, SA);
    const [prefix, mac] = [token.slice(0, token.lastIndexOf('.')), token.slice(token.lastIndexOf('.') + 1)];
    const forged = Buffer.from(JSON.stringify({ m: OTHER, exp: 9_999_999_999 })).toString('base64url');
    const cases: [string, string][] = [
      [`ya29.local.${forged}.${mac}`, 'bad signature'],
      [`${prefix}.${mac.slice(1)}x`, 'bad signature'],
      [mintToken(newTokenSecret(), SA), 'bad signature'],
      ['ya29.a0AfH6SMBsomethingfromgoogle', 'not a token of this environment'],
    ];
    for (const [t, reason] of cases) assert.deepEqual(verifyToken(secret, t), { ok: false, reason }, t);
  });
});

describe('Enforcement', () => {
  let dir: string;
  let file: string;
  const secret = newTokenSecret();
  const write = (access: AccessFile, mtimeSeconds?: number) => {
    writeFileSync(file, JSON.stringify(access));
    if (mtimeSeconds !== undefined) utimesSync(file, mtimeSeconds, mtimeSeconds);
  };
  const viewer = (member: string, expression?: string) => ({
    role: 'roles/storage.objectViewer',
    members: [member],
    ...(expression ? { condition: { expression } } : {}),
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'iam-enforce-'));
    file = join(dir, 'access.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the caller by token, else by the bound port, else the owner; a bad token is undefined', () => {
    write({ tokenSecret: secret, policies: [] });
    const e = new Enforcement(file);
    assert.deepEqual(e.callerOf(`Bearer ${mintToken(secret, SA)}`, OTHER), { principal: SA });
    assert.deepEqual(e.callerOf(`bearer   ${mintToken(secret, SA)}`, undefined), { principal: SA });
    assert.deepEqual(e.callerOf(undefined, OTHER), { principal: OTHER });
    assert.deepEqual(e.callerOf(undefined, undefined), { principal: OWNER });
    // Not a bearer token at all: as if none were sent.
    assert.deepEqual(e.callerOf('Basic dXNlcjpwYXNz', undefined), { principal: OWNER });
    assert.equal(e.callerOf('Bearer nonsense', OTHER), undefined);
    assert.equal(e.callerOf(`Bearer ${mintToken(secret, SA, -1)}`, undefined), undefined);
  });

  it('allows the owner and the granted, refuses the rest with what was missing', () => {
    write({ tokenSecret: secret, policies: [{ resource: BUCKET, bindings: [viewer(SA)] }] });
    const e = new Enforcement(file);
    assert.equal(
      e.check({ principal: OWNER }, { permission: 'storage.buckets.delete', resource: BUCKET }),
      undefined,
    );
    assert.equal(e.check({ principal: SA }, get('a')), undefined);
    const denied = e.check({ principal: OTHER }, get('a'));
    assert.deepEqual(denied, {
      principal: OTHER,
      permission: 'storage.objects.get',
      resource: `${BUCKET}/objects/a`,
    });
    assert.deepEqual(e.check({ principal: SA }, { ...get('a'), permission: 'storage.objects.delete' }), {
      principal: SA,
      permission: 'storage.objects.delete',
      resource: `${BUCKET}/objects/a`,
    });
    // What an emulator puts in its refusal.
    const d = denied as NonNullable<typeof denied>;
    assert.ok(denialSuffix(d).includes(`'storage.objects.get'`));
    assert.ok(denialSuffix(d).includes(`'${BUCKET}/objects/a'`));
    assert.deepEqual(denialInfo('storage.googleapis.com', d).metadata, {
      permission: 'storage.objects.get',
      resource: `${BUCKET}/objects/a`,
      principal: OTHER,
    });
  });

  it('holds a prefix condition to its objects and lists only on the list prefix', () => {
    write({
      tokenSecret: secret,
      policies: [
        {
          resource: BUCKET,
          bindings: [
            viewer(SA, `resource.name.startsWith("${BUCKET}/objects/replays/")`),
            viewer(
              OTHER,
              'api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("replays/")',
            ),
          ],
        },
      ],
    });
    const e = new Enforcement(file);
    const list = (listPrefix: string) => ({
      permission: 'storage.objects.list',
      resource: BUCKET,
      resourceType: 'storage.googleapis.com/Bucket',
      listPrefix,
    });
    assert.equal(e.check({ principal: SA }, get('replays/x')), undefined);
    assert.notEqual(e.check({ principal: SA }, get('other/x')), undefined);
    assert.notEqual(e.check({ principal: SA }, list('replays/')), undefined);
    assert.equal(e.check({ principal: OTHER }, list('replays/')), undefined);
    assert.notEqual(e.check({ principal: OTHER }, list('')), undefined);
  });

  it('re-reads the file when it changes, keeps the last good one, and refuses all without one', async () => {
    const e = new Enforcement(join(dir, 'missing.json'));
    assert.notEqual(e.check({ principal: SA }, get('a')), undefined);
    assert.equal(e.callerOf(`Bearer ${mintToken(secret, SA)}`, undefined), undefined);
    assert.deepEqual(e.callerOf(undefined, undefined), { principal: OWNER });

    write({ tokenSecret: secret, policies: [] }, 1_000_000);
    const f = new Enforcement(file);
    assert.notEqual(f.check({ principal: SA }, get('a')), undefined);
    write({ tokenSecret: secret, policies: [{ resource: BUCKET, bindings: [viewer(SA)] }] }, 1_000_010);
    // Looked at no more than every 200 ms.
    await new Promise((r) => setTimeout(r, 220));
    assert.equal(f.check({ principal: SA }, get('a')), undefined);

    writeFileSync(file, '{ not json');
    utimesSync(file, 1_000_020, 1_000_020);
    await new Promise((r) => setTimeout(r, 220));
    assert.equal(f.check({ principal: SA }, get('a')), undefined);
  });
});

describe('identityOption', () => {
  it('accumulates <member>=<port> bindings', () => {
    const one = identityOption(`${SA}=9101`);
    assert.deepEqual(one, [{ member: SA, port: 9101 }]);
    assert.deepEqual(identityOption('user:a=b@example.com=0', one), [
      { member: SA, port: 9101 },
      { member: 'user:a=b@example.com', port: 0 },
    ]);
  });

  it('refuses what is not a member and a port', () => {
    for (const bad of [
      `${SA}`,
      `${SA}=`,
      `${SA}=70000`,
      `${SA}=-1`,
      `${SA}=9.5`,
      'eventbus-store@p.iam.gserviceaccount.com=9101',
      '=9101',
      'serviceAccount:=9101',
    ])
      assert.throws(() => identityOption(bad), InvalidArgumentError, bad);
  });
});

describe('listenAsIdentities', () => {
  it('hands each connection on, knowing its member by socket and a gRPC call by its local port, and closes', async () => {
    const seen: { member: string | undefined; local: number }[] = [];
    const identities = await listenAsIdentities(
      '127.0.0.1',
      [
        { member: SA, port: 0 },
        { member: OTHER, port: 0 },
      ],
      (socket) => {
        seen.push({ member: identities.memberOfSocket(socket), local: socket.localPort as number });
        socket.end('hi');
      },
    );
    try {
      assert.deepEqual([...identities.ports.keys()], [SA, OTHER]);
      const ports = [...identities.ports.values()];
      assert.ok(ports.every((p) => p > 0));
      const clients: net.Socket[] = [];
      for (const port of ports) {
        const client = net.connect(port, '127.0.0.1');
        clients.push(client);
        await new Promise<void>((r) => client.once('data', () => r()));
      }
      assert.deepEqual(
        seen.map((s) => s.member),
        [SA, OTHER],
      );
      // A gRPC call by the local port the interceptor wrote; none written, or another port: no one.
      const callOn = (port?: number) => {
        const metadata = new grpc.Metadata();
        if (port !== undefined) metadata.set('x-emulator-local-port', String(port));
        return { metadata };
      };
      assert.equal(identities.memberOfCall(callOn(seen[1]?.local)), OTHER);
      assert.equal(identities.memberOfCall(callOn(1)), undefined);
      assert.equal(identities.memberOfCall(callOn()), undefined);
      assert.equal(identities.memberOfSocket(undefined), undefined);
      assert.equal(identities.memberOfSocket(clients[0]), undefined);
      for (const c of clients) c.destroy();
    } finally {
      await identities.close();
    }
    const refused = net.connect(identities.ports.get(SA) as number, '127.0.0.1');
    await new Promise<void>((resolve) => refused.once('error', () => resolve()));
  });
});
