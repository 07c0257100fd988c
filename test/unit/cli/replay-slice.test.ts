/**
 * A warehouse-slice replay to a platform (cli/commands/replay-destination.ts) decides a defined
 * event as `store` does: its definition's mapping for the platform lets it through, without one
 * it is skipped as an unknown event. The warehouse, Pub/Sub and the ledger are in memory here;
 * test/delivery/flow.test.ts replays through the real ones.
 */
import assert from 'node:assert/strict';
import { replayDestinationSlice } from '../../../cli/commands/replay-destination.ts';
import { type DefinitionSpec, definedEvent } from '../../../core/definitions/defined-events.ts';
import type { LedgerEntry } from '../../../core/delivery/ledger.ts';
import type { DeliveryMessage } from '../../../core/delivery/message.ts';
import { checkSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';

const settings = (() => {
  const r = checkSettings({
    name: 'replay',
    project: 'replay-project',
    region: 'europe-west1',
    destinations: [
      {
        id: 'meta',
        type: 'meta_capi',
        config: { pixel_id: '123456789012345' },
        secrets: { access_token: 't' },
      },
    ],
  });
  assert.ok(r.ok);
  return r.settings as Settings;
})();

const row = {
  event_id: 'q-1',
  event_name: 'quote_asked',
  event_time: { value: '2026-11-22T10:00:00.000Z' },
  received_at: { value: '2026-11-22T10:00:01.000Z' },
  topic: 'events',
  user: { email: 'ana@example.com', phone: null },
  consent: { ads: 'granted', ad_user_data: 'granted', analytics: null },
  event_data: JSON.stringify({ amount: 12 }),
  definition_version: 'quote_asked@1.0',
};

const QUOTE = definedEvent('quote_asked', '1.0', {
  fields: [{ name: 'amount', type: 'number' }],
  mappings: { meta_capi: { event: 'Lead', fields: { 'custom_data.value': { from: 'amount' } } } },
} as DefinitionSpec);

async function replay(definition?: (stamp: string) => Promise<ReturnType<typeof definedEvent> | undefined>) {
  const published: DeliveryMessage[] = [];
  const ledger: LedgerEntry[] = [];
  const asked: string[] = [];
  const report = await replayDestinationSlice({
    settings,
    project: 'replay-project',
    dataset: 'events',
    destination: 'meta',
    from: new Date('2026-11-22T00:00:00Z'),
    to: new Date('2026-11-23T00:00:00Z'),
    query: async () => [row, { ...row, event_id: 'q-2' }],
    publish: async (m) => published.push(...m),
    writeLedger: async (e) => ledger.push(...e),
    // The day after the slice: within Meta's 7-day age limit whatever day the test runs.
    now: () => new Date('2026-11-23T12:00:00Z'),
    ...(definition
      ? {
          definition: async (stamp: string) => {
            asked.push(stamp);
            return definition(stamp);
          },
        }
      : {}),
  });
  return { report, published, ledger, asked };
}

describe('replay of a warehouse slice: defined events', () => {
  it('re-sends a defined event to the platform its definition maps it to, reading the version once', async () => {
    const r = await replay(async (stamp) => (stamp === 'quote_asked@1.0' ? QUOTE : undefined));
    assert.deepEqual([r.report.republished, r.report.skipped], [2, 0]);
    assert.equal(r.published.length, 2);
    assert.deepEqual(r.asked, ['quote_asked@1.0']);
  });

  it('skips it, saying why, when the definition cannot be read or does not map it', async () => {
    const r = await replay();
    assert.deepEqual([r.report.republished, r.report.skipped], [0, 2]);
    assert.match(JSON.stringify(r.ledger[0]), /unknown event quote_asked has no mapping for meta_capi/);
    const unmapped = await replay(async () =>
      definedEvent('quote_asked', '1.0', { fields: [{ name: 'amount', type: 'number' }] } as DefinitionSpec),
    );
    assert.equal(unmapped.report.skipped, 2);
  });
});
