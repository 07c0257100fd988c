/**
 * The default subscriptions table (scripts/segment-subscriptions.ts): the committed
 * core/platforms/segment-action/default-subscriptions.json is the catalogue manifest's actions
 * and default subscriptions, so the decision layer in `store` knows what the runtime's actions take.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { CatalogManifest } from '../../../core/platforms/segment-action/catalog.ts';
import {
  SUBSCRIPTIONS_FILE,
  subscriptionTable,
  subscriptionText,
} from '../../../scripts/segment-subscriptions.ts';

describe('scripts: segment-subscriptions', () => {
  it('the committed table is the manifest’s (else run `npx node scripts/segment-subscriptions.ts`)', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../../core/platforms/segment-action/catalog.json', import.meta.url), 'utf8'),
    ) as CatalogManifest;
    assert.equal(readFileSync(SUBSCRIPTIONS_FILE, 'utf8'), subscriptionText(subscriptionTable(manifest)));
  });

  it('keeps every action, its default with white space collapsed, null without one, and the presets that run; written as biome formats JSON', () => {
    const table = subscriptionTable({
      destinations: [
        {
          slug: 'x',
          name: 'X',
          auth: 'none',
          authFields: [],
          loads: true,
          actions: [
            {
              key: 'track',
              title: 'Track',
              fields: [],
              defaultSubscription: '\n  type = "track"\n  and event != "A"\n',
            },
            { key: 'post', title: 'Post', fields: [] },
          ],
          presets: [
            { name: 'Track Calls', action: 'track', subscribe: 'type = "track"' },
            { name: 'Audience', action: 'post', eventSlug: 'warehouse_audience_entered_track' },
          ],
        },
        { slug: 'y', name: 'Y', auth: 'none', authFields: [], loads: true, actions: [] },
      ],
    });
    assert.deepEqual(table, {
      x: {
        defaults: { track: 'type = "track" and event != "A"', post: null },
        presets: [{ action: 'track', subscribe: 'type = "track"' }],
      },
      y: { defaults: {} },
    });
    assert.equal(subscriptionText(table), `${JSON.stringify(table, null, 2)}\n`);
  });

  it('keeps the paths an action’s required fields read by plain @path, and the ones a preset maps otherwise', () => {
    const field = (key: string, required: boolean, value: unknown, extra = {}) => ({
      key,
      label: key,
      type: 'string',
      required,
      default: value,
      ...extra,
    });
    const table = subscriptionTable({
      destinations: [
        {
          slug: 'a',
          name: 'A',
          auth: 'none',
          authFields: [],
          loads: true,
          actions: [
            {
              key: 'sync',
              title: 'Sync',
              defaultSubscription: 'type = "identify"',
              fields: [
                field('audience', true, { '@path': '$.context.personas.computation_key' }),
                field('email', true, { '@if': { exists: { '@path': '$.traits.email' } } }),
                field('first', true, { '@path': '$.properties.products[0]' }),
                field('phone', false, { '@path': '$.traits.phone' }),
                field('when', true, { '@path': '$.timestamp' }, { conditional: true }),
                field('kind', true, 'user'),
                field('id', true, { '@path': '$.userId' }),
              ],
            },
          ],
          presets: [
            {
              name: 'Sync',
              action: 'sync',
              subscribe: 'type = "identify"',
              mapping: { id: { '@path': '$.anonymousId' } },
            },
          ],
        },
      ],
    });
    assert.deepEqual(table['a'], {
      defaults: { sync: 'type = "identify"' },
      needs: { sync: { audience: 'context.personas.computation_key', id: 'userId' } },
      presets: [{ action: 'sync', subscribe: 'type = "identify"', sets: ['id'] }],
    });
    // Biome writes an array of strings on one line when it fits its line width, else one a line.
    assert.match(subscriptionText(table), /^ {8}"sets": \["id"\]$/m);
    const long = Array.from({ length: 12 }, (_, i) => `field_number_${i}`);
    const wide = subscriptionText({
      w: { defaults: {}, presets: [{ action: 'a', subscribe: 's', sets: long }] },
    });
    assert.match(wide, /"sets": \[\n {10}"field_number_0",\n/);
  });
});
