/**
 * `eventbus destinations list`: the catalogue one destination a line (slug, name, category, auth
 * kind, actions), as JSON, searched; and the settings' own destinations without `--catalog`.
 */
import assert from 'node:assert/strict';
import { runCli } from '../../support/cli.ts';

describe('cli: destinations list', () => {
  it('--catalog lists at least 140 destinations, one a line with its auth kind, and exits 0', async () => {
    const r = await runCli('destinations', 'list', '--catalog');
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trimEnd().split('\n').slice(2);
    assert.ok(lines.length >= 140, `${lines.length} lines`);
    const klaviyo = lines.find((l) => l.startsWith('klaviyo '));
    assert.match(klaviyo ?? '', /^klaviyo\s+Klaviyo \(Actions\)\s+\S.*\s+api_key\s+\d+$/);
    assert.match(
      r.err,
      /\d+ destination\(s\) from @segment\/action-destinations \d+\.\d+\.\d+; \d+ take their credentials/,
    );
    // Those whose every action connects around the egress gate are listed, and said not offered.
    assert.match(lines.find((l) => l.startsWith('kafka ')) ?? '', /^kafka\s/);
    assert.match(
      r.err,
      /not offered: amazon-eventbridge, kafka, singlestore \(their actions connect by a client of their own, around the egress gate\)/,
    );
  });

  it('--json gives each destination its auth kind, whether it is supported and its actions', async () => {
    const r = await runCli('destinations', 'list', '--catalog', '--json', '--search', 'klaviyo');
    assert.equal(r.code, 0, r.err);
    const rows = JSON.parse(r.out) as Record<string, unknown>[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.['slug'], 'klaviyo');
    assert.equal(rows[0]?.['auth'], 'api_key');
    assert.equal(rows[0]?.['supported'], true);
    assert.ok((rows[0]?.['action_keys'] as string[] | undefined)?.includes('trackEvent'));
    assert.equal(rows[0]?.['undelivered'], undefined);
    assert.equal(r.err, '');
  });

  it('--json says why a destination the catalogue run made deliver nothing does not deliver (#95)', async () => {
    const r = await runCli('destinations', 'list', '--catalog', '--json', '--search', 'twilio studio');
    assert.equal(r.code, 0, r.err);
    const rows = JSON.parse(r.out) as Record<string, unknown>[];
    const studio = rows.find((d) => d['slug'] === 'twilio-studio');
    assert.match(String(studio?.['undelivered']), /Segment's own services/);
  });

  it('--search with no match says so and exits 0', async () => {
    const r = await runCli('destinations', 'list', '--catalog', '--search', 'zzz-no-such-thing');
    assert.equal(r.code, 0);
    assert.equal(r.out, 'no destination matches "zzz-no-such-thing"\n');
  });

  it("without --catalog lists the settings' destinations", async () => {
    const r = await runCli('destinations', 'list', '--json');
    assert.equal(r.code, 0, r.err);
    const rows = JSON.parse(r.out) as { id: string; type: string }[];
    assert.ok(rows.length > 0);
    assert.ok(rows.every((d) => typeof d.id === 'string' && typeof d.type === 'string'));
  });
});
