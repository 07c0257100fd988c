import assert from 'node:assert/strict';
import { checkMappings } from '../../../core/platforms/mapping-check.ts';
import { parseSettings } from '../../../core/settings.ts';
import type { Destination } from '../../../schemas/settings.ts';

const meta = (mappings: Record<string, unknown>): Destination =>
  ({ id: 'meta', type: 'meta_capi', config: { pixel_id: '1' }, mappings }) as Destination;

describe('linkage: mappings checked at load', () => {
  it('accepts overrides of catalogue events and custom-event mappings', () => {
    const v = checkMappings({
      destinations: [
        meta({
          purchase: {
            fields: {
              'custom_data.order_id': { from: ['transaction_id', 'event_id'] },
              'user_data.fbp': null,
            },
          },
          quote_requested: {
            event: 'Lead',
            fields: {
              'custom_data.value': { from: 'amount', transform: ['number'] },
              'custom_data.contents': { each: 'lines', fields: { id: '$.sku' } },
            },
          },
        }),
      ],
    });
    assert.deepEqual(v, []);
  });

  it('names the key of a mapping that reads a field its catalogue event does not have', () => {
    const v = checkMappings({
      destinations: [
        { id: 'w', type: 'webhook' } as Destination,
        meta({ purchase: { fields: { 'custom_data.value': 'amount' } } }),
      ],
    });
    assert.deepEqual(v, [
      {
        field: 'destinations[1].mappings.purchase.fields["custom_data.value"]',
        description: 'reads "amount", which purchase does not have',
      },
    ]);
  });

  it('checks item paths inside each against the catalogue item, and context groups for every event', () => {
    const v = checkMappings({
      destinations: [
        meta({
          purchase: { fields: { x: { each: 'items', fields: { id: '$.sku' } } } },
          quote_requested: { event: 'Lead', fields: { y: 'user.emial' } },
        }),
      ],
    });
    assert.deepEqual(
      v.map((x) => x.field),
      [
        'destinations[0].mappings.purchase.fields.x.fields.id',
        'destinations[0].mappings.quote_requested.fields.y',
      ],
    );
    assert.match(v[1]?.description ?? '', /context field user does not have/);
  });

  it('reports syntax errors once per rule, a custom event without a target event, GA4 names', () => {
    const v = checkMappings({
      destinations: [
        meta({ quote_requested: { fields: { a: { form: 'x' }, b: { from: 'value', transform: ['md5'] } } } }),
        { id: 'ga4', type: 'ga4_mp', mappings: { quote_requested: { event: 'ga_quote' } } } as Destination,
      ],
    });
    assert.deepEqual(
      v.map((x) => x.field),
      [
        'destinations[0].mappings.quote_requested.event',
        'destinations[0].mappings.quote_requested.fields.a',
        'destinations[0].mappings.quote_requested.fields.b.transform[0]',
        'destinations[1].mappings.quote_requested.event',
      ],
    );
  });

  it('is part of loading settings: a mapping error stops parseSettings', () => {
    const yaml = `
name: t
project: test-project
region: europe-west1
destinations:
  - id: meta
    type: meta_capi
    config: { pixel_id: "1" }
    secrets: { access_token: META_TOKEN }
    mappings:
      quote_requested:
        event: Lead
        fields:
          value: { from: amount }
      view_content:
        fields:
          custom_data.value: price
`;
    const r = parseSettings(yaml);
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.errors, [
      {
        field: 'destinations[0].mappings.view_content.fields["custom_data.value"]',
        description: 'reads "price", which view_content does not have',
      },
    ]);
  });
});
