/**
 * The one log redaction (core/privacy/redact-log.ts, adapters/log-redaction.ts): each kind of
 * credential it removes, and a child process whose every write to stdout and stderr goes through it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { redactLogText, secretForms, secretParts } from '../../../core/privacy/redact-log.ts';
import { ENTRY_FILES } from '../../support/entry-files.ts';

/** The repository root (not test/support/local-start.ts's: that module loads the supervisor). */
const REPO = resolve(import.meta.dirname, '../../..');

/** Every service process's entry point: the deployables', and the local receiver (a stand-in the supervisor runs). */
const ENTRY_POINTS = [...ENTRY_FILES.filter((f) => !f.endsWith('/service.ts')), 'local/receiver/main.ts'];
describe('privacy: one redaction of credentials in every log line', () => {
  const known = (...values: string[]) => ({
    values: values.flatMap((v) => secretParts(v).flatMap(secretForms)).sort((a, b) => b.length - a.length),
  });

  it('a secret the process holds, as written and percent-encoded, anywhere in a line', () => {
    const secret = 'sk_live/4eC39HqLyjWDarjtT1zdp7dc+x';
    const line = `{"message":"POST https://api.example.com/v1?k=${encodeURIComponent(secret)} failed: key ${secret} refused"}`;
    const out = redactLogText(line, known(secret));
    assert.ok(!out.includes(secret) && !out.includes(encodeURIComponent(secret)), out);
    assert.match(out, /failed: key \[redacted\] refused/);
  });

  it("a credentials file's parts, each on its own", () => {
    const file = JSON.stringify({
      type: 'authorized_user',
      client_id: 'client-1.apps.example',
      client_secret: 'GOCSPX-abcdefghijklmnop',
      refresh_token: '1//0gREFRESHTOKENvalue-xyz',
    });
    const out = redactLogText(
      'refresh with 1//0gREFRESHTOKENvalue-xyz failed (GOCSPX-abcdefghijklmnop)',
      known(file),
    );
    assert.equal(out, 'refresh with [redacted] failed ([redacted])');
  });

  it('credentials by shape: tokens, write keys, Bearer, query parameters, JSON headers', () => {
    const cases: [string, string][] = [
      ['token ebt_0123456789ab_SECRETsecret refused', 'token [redacted] refused'],
      ['key=ebk_live_abcdef123456', 'key=[redacted]'],
      ['authorization: Bearer ya29.a0AfH6SMBx-very-secret', 'authorization: Bearer [redacted]'],
      ['GET /v1/t?writeKey=abc123def&x=1 401', 'GET /v1/t?writeKey=[redacted]&x=1 401'],
      ['GET /live?token=s3cr3t-admin-token', 'GET /live?token=[redacted]'],
      [
        'https://graph.example/ev?access_token=EAAGm0PX4ZCps&v=2',
        'https://graph.example/ev?access_token=[redacted]&v=2',
      ],
      [
        '{"headers":{"Authorization":"Klaviyo-API-Key pk_abc","x-api-key":"k-123"}}',
        '{"headers":{"Authorization":"[redacted]","x-api-key":"[redacted]"}}',
      ],
    ];
    for (const [line, want] of cases) assert.equal(redactLogText(line), want, line);
  });

  it('ordinary lines are left as they are', () => {
    for (const line of [
      '{"severity":"INFO","message":"forward listening on http://127.0.0.1:8082"}',
      'delivered evt-1 to meta (token:t_1a2b, key:k_9)',
      'GET /v1/t?page=2&sort=asc 200',
      'egress refused: 169.254.169.254 is the metadata server',
    ])
      assert.equal(redactLogText(line), line);
  });

  it('a process that installed it: console.log, console.error and raw stderr writes come out redacted', () => {
    const secret = 'destination-api-key-0123456789';
    const script = [
      `import { noteSecret, redactProcessOutput } from ${JSON.stringify(join(REPO, 'adapters', 'log-redaction.ts'))};`,
      'redactProcessOutput();',
      `noteSecret(${JSON.stringify(secret)});`,
      `console.log(JSON.stringify({ message: 'calling with ${secret}' }));`,
      `console.error('GET /v1/admin?token=admin-0123456789 and', '${secret}');`,
      `process.stderr.write(Buffer.from('raw ${secret}\\n'));`,
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const all = r.stdout + r.stderr;
    assert.ok(!all.includes(secret), all);
    assert.ok(!all.includes('admin-0123456789'), all);
    assert.match(r.stdout, /calling with \[redacted\]/);
    assert.match(r.stderr, /raw \[redacted\]/);
  });

  it('every service entry point installs it before it starts', () => {
    const services = readFileSync(join(REPO, 'local', 'services.ts'), 'utf8');
    // The entry points the supervisor names are all in the list (a new service must install it too).
    for (const m of services.matchAll(/join\(ctx\.root, '([a-z-]+)', '([a-z-]+)', '([a-z-]+\.ts)'\)/g))
      if (m[1] !== 'emulators') assert.ok(ENTRY_POINTS.includes(`${m[1]}/${m[2]}/${m[3]}`), m[0]);
    for (const m of services.matchAll(/join\(ctx\.root, '([a-z-]+)', '(main\.ts)'\)/g))
      assert.ok(ENTRY_POINTS.includes(`${m[1]}/${m[2]}`), m[0]);
    for (const file of ENTRY_POINTS)
      assert.match(readFileSync(join(REPO, file), 'utf8'), /^\s*redactProcessOutput\(\);$/m, file);
    // A function served as a Cloud Run service installs it through its index.ts.
    for (const file of ENTRY_FILES.filter((f) => f.endsWith('/service.ts')))
      assert.match(readFileSync(join(REPO, file), 'utf8'), /from '\.\/index\.ts'/, file);
  });
});
