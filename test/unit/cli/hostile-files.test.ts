/**
 * The CLI given hostile or risky files (issue 33): a YAML "billion laughs" is refused with one
 * line naming the file, never a stack trace, whether it is a resource file or a settings file;
 * settings pointing at the metadata server, or at loopback outside the local environment, are
 * checked with a warning (not a refusal).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressKind, addressWarnings, checkSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';
import { runCli as cli } from '../../support/cli.ts';

/** Nine levels of nine aliases each: 9^6 nodes once expanded. */
const BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
  'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
  'f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]',
  'kind: Rule',
  '',
].join('\n');

describe('cli: hostile files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-hostile-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a YAML bomb in a resource file with one clear line, not a stack trace', async () => {
    const file = join(dir, 'bomb.yaml');
    writeFileSync(file, BOMB);
    for (const command of ['apply', 'diff']) {
      const r = await cli(command, '-f', file);
      assert.equal(r.code, 1);
      assert.equal(r.err, `error: ${file}: Excessive alias count indicates a resource exhaustion attack\n`);
    }
  });

  it('refuses a YAML bomb in a settings file naming the problem, not with a stack trace', async () => {
    const file = join(dir, 'settings-bomb.yaml');
    writeFileSync(
      file,
      `name: x\nproject: some-project\nregion: europe-west1\n${BOMB.replace('kind: Rule', '')}`,
    );
    const r = await cli('settings', 'check', file);
    assert.equal(r.code, 1);
    assert.match(r.err, /\(yaml\): Excessive alias count/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  });

  it('warns when settings point at the metadata server, or at loopback outside the local environment', async () => {
    const file = join(dir, 'prod.yaml');
    writeFileSync(
      file,
      [
        'name: prod',
        'project: some-project',
        'region: europe-west1',
        'destinations:',
        '  - { id: hook, type: webhook, base_url: "http://127.0.0.1:8099", config: { path: /x }, secrets: { signing_key: HOOK_KEY } }',
        'connections:',
        '  - { id: crm, type: webhook, url: "http://169.254.169.254/computeMetadata/v1/" }',
        '  - { id: meta2, type: webhook, url: "http://metadata.google.internal/" }',
        '  - { id: ok, type: webhook, url: "https://crm.example/hook" }',
        '',
      ].join('\n'),
    );
    const r = await cli('settings', 'check', file);
    assert.equal(r.code, 0, r.err);
    const warnings = r.err.split('\n').filter((l) => l.startsWith('warning: ') && /address/.test(l));
    assert.deepEqual(
      warnings.map((w) => w.split(':')[1]?.trim()),
      ['destinations[0].base_url', 'connections[0].url', 'connections[1].url'],
    );
    assert.match(
      r.err,
      /connections\[0\]\.url: http:\/\/169\.254\.169\.254\/computeMetadata\/v1\/ is the metadata server/,
    );
    assert.match(r.err, /destinations\[0\]\.base_url: http:\/\/127\.0\.0\.1:8099 is a loopback address/);
  });

  it('settings check names an internal base_url and an internal URL written in a mapping (#75)', async () => {
    const file = join(dir, 'egress.yaml');
    writeFileSync(
      file,
      [
        'name: prod',
        'project: some-project',
        'region: europe-west1',
        'destinations:',
        '  - { id: crm, type: webhook, base_url: "https://10.0.0.5", config: { path: /x }, secrets: { signing_key: HOOK_KEY } }',
        '  - id: hook',
        '    type: segment_action',
        '    destination: webhook',
        '    actions:',
        '      - action: send',
        '        when: [purchase]',
        '        mapping:',
        '          url: https://hooks.example.com/x',
        '          headers: { "X-Studio": "https://127.0.0.1:8090/v1/admin/apply" }',
        '',
      ].join('\n'),
    );
    const r = await cli('settings', 'check', file);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.err,
      /warning: destinations\[0\]\.base_url: https:\/\/10\.0\.0\.5 points inside \(a private address\)/,
    );
    assert.match(
      r.err,
      /warning: destinations\[1\]\.actions\[0\]\.mapping\.headers\.X-Studio: https:\/\/127\.0\.0\.1:8090\/v1\/admin\/apply is a loopback address/,
    );
  });

  it('an event-read URL is refused unless allow_event_urls and allowed_hosts (#98); CGNAT and .internal are inside', () => {
    const base = { name: 'prod', project: 'some-project', region: 'europe-west1' };
    const hook = (extra: Record<string, unknown>) => ({
      ...base,
      destinations: [
        {
          id: 'hook',
          type: 'segment_action',
          destination: 'webhook',
          actions: [
            {
              action: 'send',
              when: ['purchase'],
              mapping: { headers: { Authorization: { '@path': '$.properties.auth' } } },
            },
          ],
          ...extra,
        },
      ],
    });
    const warned = (value: unknown) => {
      const r = checkSettings(value);
      assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
      return addressWarnings(r.settings as Settings).map((w) => w.split(': ')[0]);
    };
    const refused = (value: unknown) => {
      const r = checkSettings(value);
      return r.ok ? [] : r.errors.map((e) => e.field);
    };
    assert.deepEqual(refused(hook({})), ['destinations[0].actions[0].mapping.headers']);
    assert.deepEqual(refused(hook({ allow_event_urls: true })), [
      'destinations[0].actions[0].mapping.headers',
    ]);
    assert.deepEqual(warned(hook({ allow_event_urls: true, allowed_hosts: ['hooks.example.com'] })), []);
    assert.deepEqual(
      warned({
        ...base,
        connections: [
          { id: 'a', type: 'webhook', url: 'https://100.64.1.2/hook' },
          { id: 'b', type: 'webhook', url: 'https://db.corp.internal/hook' },
          { id: 'c', type: 'webhook', url: 'https://hooks.example.com/hook' },
        ],
      }),
      ['connections[0].url', 'connections[1].url'],
    );
  });

  it('reads hosts as URL parsers do, and leaves loopback alone in the local environment', () => {
    assert.equal(addressKind('http://2852039166/'), 'metadata', 'decimal 169.254.169.254');
    assert.equal(addressKind('http://[::ffff:169.254.169.254]/'), 'metadata');
    assert.equal(addressKind('http://metadata.google.internal./'), 'metadata');
    assert.equal(addressKind('http://0x7f.1:80/'), 'loopback');
    assert.equal(addressKind('http://[::1]/'), 'loopback');
    assert.equal(addressKind('https://api.example.com/'), undefined);
    const local = checkSettings({
      name: 'local',
      project: 'local-project',
      region: 'europe-west1',
      connections: [
        { id: 'a', type: 'webhook', url: 'http://127.0.0.1:8099/hook' },
        { id: 'b', type: 'webhook', url: 'http://169.254.169.254/' },
      ],
    });
    assert.ok(local.ok);
    assert.deepEqual(
      addressWarnings(local.settings as Settings).map((w) => w.split(':')[0]),
      ['connections[1].url'],
    );
  });
});
