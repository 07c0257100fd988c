/**
 * The local access file (local/access-file.ts): its secret survives a rewrite, tokens are minted
 * from it for a workload or a member, service-account keys are published in it and survive a
 * rewrite, and the policies come from the program declared offline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createSign } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PII_RESOURCES } from '../../core/access/needs.ts';
import { OWNER, verifyRsaSha256, verifyToken } from '../../emulators/common/iam-enforce.ts';
import type { IamPolicy } from '../../emulators/common/iam-policy.ts';
import { mockPolicyTag } from '../../infra/offline.ts';
import {
  accessFilePath,
  localToken,
  memberFor,
  PLAN_INPUT_DIRS,
  planKey,
  plannedAccess,
  plannedPolicies,
  pruneKept,
  readAccessFile,
  writeAccessFile,
  writeDeclaredSettings,
  writeServiceAccountKey,
} from '../../local/access-file.ts';
import { DEFAULT_PORTS, localSettings, type Ports } from '../../local/services.ts';
import { REPO_ROOT, readSettingsFile } from '../../local/settings-file.ts';

/** The members `policies` bind to `role` on `resource`. */
const membersIn = (policies: readonly IamPolicy[]) => (resource: string, role: string) =>
  policies
    .filter((p) => p.resource === resource)
    .flatMap((p) => p.bindings.filter((b) => b.role === role).flatMap((b) => b.members));

/** What the program declares for one of `environments/`. */
const planOf = (file: string) =>
  plannedAccess(process.execPath, REPO_ROOT, join(REPO_ROOT, 'environments', file));

describe('local: the access file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'access-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its secret when rewritten, readable by its owner only', () => {
    const first = writeAccessFile(dir, []);
    const second = writeAccessFile(dir, [{ resource: 'projects/p', bindings: [] }]);
    assert.equal(second.tokenSecret, first.tokenSecret);
    assert.equal(readAccessFile(dir)?.policies.length, 1);
    assert.equal(statSync(accessFilePath(dir)).mode & 0o077, 0);
  });

  it('keeps its policy tags when rewritten with policies alone, and drops them when told none', () => {
    const tag = { name: 'projects/p/locations/eu/taxonomies/1/policyTags/2', dataPolicies: [] };
    writeAccessFile(dir, [], [tag]);
    writeAccessFile(dir, [{ resource: 'projects/p', bindings: [] }]);
    assert.deepEqual(readAccessFile(dir)?.policyTags, [tag]);
    writeAccessFile(dir, [], []);
    assert.equal(readAccessFile(dir)?.policyTags, undefined);
  });

  it('waits for another writer’s lock, so neither change is lost', async function () {
    this.timeout(30_000);
    writeAccessFile(dir, []);
    const access = accessFilePath(dir);
    // Another command: takes the lock, reads the file, and writes its change 1.5 s later.
    const other = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
const [access] = process.argv.slice(1);
fs.writeFileSync(access + '.lock', String(process.pid), { flag: 'wx' });
const file = JSON.parse(fs.readFileSync(access, 'utf8'));
setTimeout(() => {
  file.policies = [{ resource: 'projects/other', bindings: [] }];
  fs.writeFileSync(access, JSON.stringify(file));
  fs.rmSync(access + '.lock');
}, 1500);`,
        access,
      ],
      { stdio: 'inherit' },
    );
    const exited = new Promise((resolve) => other.on('exit', resolve));
    const t0 = Date.now();
    while (!existsSync(`${access}.lock`)) {
      assert.ok(Date.now() - t0 < 15_000, 'the other writer never took the lock');
      await new Promise((r) => setTimeout(r, 20));
    }
    writeServiceAccountKey(dir, 'store', 'p', join(dir, 'store.key.json'));
    assert.equal(await exited, 0);
    const after = readAccessFile(dir);
    assert.deepEqual(after?.policies, [{ resource: 'projects/other', bindings: [] }]);
    assert.equal(after?.serviceAccountKeys?.length, 1);
    assert.ok(!existsSync(`${access}.lock`));
  });

  it('writes a key file 0600 over an existing world-readable file', () => {
    writeAccessFile(dir, []);
    const existing = join(dir, 'existing.json');
    writeFileSync(existing, '{}');
    chmodSync(existing, 0o644);
    writeServiceAccountKey(dir, 'store', 'p', existing);
    assert.equal(statSync(existing).mode & 0o777, 0o600);
    assert.match(readFileSync(existing, 'utf8'), /PRIVATE KEY/);
  });

  it('publishes a service account’s key, writes its key file, and keeps the key when rewritten', () => {
    const out = join(dir, 'keys', 'store.json');
    assert.throws(() => writeServiceAccountKey(dir, 'store', 'p', out), /does not exist/);
    writeAccessFile(dir, []);
    const member = writeServiceAccountKey(dir, 'store', 'p', out);
    assert.equal(member, 'serviceAccount:eventbus-store@p.iam.gserviceaccount.com');
    const key = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    assert.equal(key.client_email, 'eventbus-store@p.iam.gserviceaccount.com');
    assert.equal(statSync(out).mode & 0o077, 0);
    writeAccessFile(dir, [{ resource: 'projects/p', bindings: [] }]);
    const published = readAccessFile(dir)?.serviceAccountKeys ?? [];
    assert.deepEqual(
      published.map((k) => [k.serviceAccount, k.keyId]),
      [[key.client_email, key.private_key_id]],
    );
    const sig = createSign('RSA-SHA256')
      .update('x')
      .sign(key.private_key as string);
    assert.ok(verifyRsaSha256(published, 'x', sig));
  });

  it('mints tokens for a workload or a member, and says when there is no file', () => {
    assert.throws(() => localToken(dir, 'studio', 'p'), /does not exist: start the environment/);
    const { tokenSecret } = writeAccessFile(dir, []);
    const v = verifyToken(tokenSecret, localToken(dir, 'studio', 'local-project'));
    assert.deepEqual(v, {
      ok: true,
      member: 'serviceAccount:eventbus-studio@local-project.iam.gserviceaccount.com',
    });
    // The project's owner, by name (it reads the receiver's metrics, which no workload may list).
    assert.deepEqual(verifyToken(tokenSecret, localToken(dir, 'owner', 'local-project')), {
      ok: true,
      member: OWNER,
    });
    assert.equal(memberFor('user:ana@example.com', 'p'), 'user:ana@example.com');
    assert.throws(
      () => memberFor('stduio', 'p'),
      /neither a workload \(gateway, store, forward, schedule, studio, forward-catalog\)/,
    );
  });

  it('takes the policies from the program pulumi up runs, declared offline', async function () {
    this.timeout(30_000);
    const policies = await plannedPolicies(
      process.execPath,
      REPO_ROOT,
      join(REPO_ROOT, 'environments', 'local.yaml'),
    );
    const members = membersIn(policies);
    assert.ok(
      members('projects/local-project/topics/events', 'roles/pubsub.publisher').includes(
        'serviceAccount:eventbus-gateway@local-project.iam.gserviceaccount.com',
      ),
    );
    assert.ok(
      members(
        'projects/local-project/subscriptions/deliveries-webhook-dead-letter-backlog',
        'roles/pubsub.subscriber',
      ).includes('serviceAccount:eventbus-schedule@local-project.iam.gserviceaccount.com'),
    );
  });

  it('declares a start from its settings as given: the same plan on whatever ports it runs', async function () {
    this.timeout(60_000);
    const given = readSettingsFile(join(REPO_ROOT, 'environments', 'local.yaml'));
    const elsewhere = Object.fromEntries(
      Object.entries(DEFAULT_PORTS).map(([name, port]) => [name, port + 1000]),
    ) as unknown as Ports;
    const moved = join(dir, 'moved.json');
    writeFileSync(moved, JSON.stringify(localSettings(given, elsewhere)));
    const declared = writeDeclaredSettings(dir, given);
    assert.notEqual(readFileSync(moved, 'utf8'), readFileSync(declared, 'utf8'), 'the move changes URLs');
    assert.deepEqual(
      await plannedAccess(process.execPath, REPO_ROOT, moved),
      await plannedAccess(process.execPath, REPO_ROOT, declared),
    );
    const other = join(dir, 'other');
    assert.equal(planKey(REPO_ROOT, writeDeclaredSettings(other, given)), planKey(REPO_ROOT, declared));
  });

  it('takes the policy tag and its masking rule from the program, with column security on', async function () {
    this.timeout(60_000);
    const example = await planOf('example.yaml');
    const project = 'acme-outdoor-prod';
    assert.deepEqual(example.policyTags, [
      {
        name: mockPolicyTag(project, 'eu'),
        resource: PII_RESOURCES.tag,
        dataPolicies: [
          {
            name: `projects/${project}/locations/eu/dataPolicies/acme_prod_pii_sha256`,
            resource: PII_RESOURCES.maskingRule,
            predefinedExpression: 'SHA256',
          },
        ],
      },
    ]);
    const members = membersIn(example.policies);
    const sa = (who: string) => `serviceAccount:eventbus-${who}@${project}.iam.gserviceaccount.com`;
    // Who reads the PII columns raw, who masked: the scheduler and pii_readers; the studio and analysts.
    assert.deepEqual(members(PII_RESOURCES.tag, 'roles/datacatalog.categoryFineGrainedReader').sort(), [
      'group:privacy-team@acme.example',
      sa('schedule'),
    ]);
    assert.deepEqual(members(PII_RESOURCES.maskingRule, 'roles/bigquerydatapolicy.maskedReader').sort(), [
      'group:analytics@acme.example',
      sa('studio'),
    ]);
    const local = await planOf('local.yaml');
    assert.deepEqual(local.policyTags, []);
  });
});

describe('local: the declared access, kept while what it reads holds', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'access-plan-key-'));
    for (const dir of PLAN_INPUT_DIRS) mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, 'infra', 'program.ts'), 'export const a = 1;');
    mkdirSync(join(root, 'core', 'access'), { recursive: true });
    writeFileSync(join(root, 'core', 'access', 'needs.ts'), 'export const b = 2;');
    writeFileSync(join(root, 'package-lock.json'), '{}');
    writeFileSync(join(root, 'settings.yaml'), 'project: p\n');
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'notes.md'), 'a');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const key = () => planKey(root, join(root, 'settings.yaml'));

  it('changes its key with the settings, any file of the program, the locked packages or Node', () => {
    const first = key();
    assert.equal(key(), first, 'the same inputs, the same key');
    writeFileSync(join(root, 'docs', 'notes.md'), 'b');
    assert.equal(key(), first, 'a file the program cannot read');
    for (const [file, text] of [
      ['settings.yaml', 'project: q\n'],
      ['core/access/needs.ts', 'export const b = 3;'],
      ['infra/added.ts', ''],
      ['package-lock.json', '{"lockfileVersion":3}'],
    ] as const) {
      const before = key();
      writeFileSync(join(root, file), text);
      assert.notEqual(key(), before, file);
    }
    assert.notEqual(planKey(root, join(root, 'settings.yaml'), 'v99.0.0'), key(), 'another Node');
  });

  it('keeps the newest plans only', () => {
    const dir = join(root, 'kept');
    mkdirSync(dir);
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(dir, `${i}.json`), '{}');
      utimesSync(join(dir, `${i}.json`), 1_000 + i, 1_000 + i);
    }
    writeFileSync(join(dir, 'other.txt'), '');
    pruneKept(dir, 3);
    assert.deepEqual(readdirSync(dir).sort(), ['2.json', '3.json', '4.json', 'other.txt']);
  });

  it('gives back what the program declares, from the cache the second time, and declares again past a broken one', async function () {
    this.timeout(60_000);
    // Settings of its own (a comment makes other bytes): tests beside it keep reading local.yaml's.
    const settings = join(root, 'local.yaml');
    writeFileSync(
      settings,
      `# ${root}\n${readFileSync(join(REPO_ROOT, 'environments', 'local.yaml'), 'utf8')}`,
    );
    const kept = join(
      REPO_ROOT,
      'node_modules',
      '.cache',
      'eventbus-access-plan',
      `${planKey(REPO_ROOT, settings)}.json`,
    );
    rmSync(kept, { force: true });
    const declared = await plannedAccess(process.execPath, REPO_ROOT, settings);
    assert.ok(existsSync(kept), 'kept');
    assert.ok(declared.policies.length > 0);
    // What is kept is what is given back: a changed copy shows it was read, not declared again.
    const marked = { ...declared, policyTags: [{ name: 'from-the-cache', dataPolicies: [] }] };
    writeFileSync(kept, JSON.stringify(marked));
    assert.deepEqual(await plannedAccess(process.execPath, REPO_ROOT, settings), marked);
    writeFileSync(kept, '{"policies": [');
    assert.deepEqual(await plannedAccess(process.execPath, REPO_ROOT, settings), declared);
    rmSync(kept, { force: true });
  });
});
