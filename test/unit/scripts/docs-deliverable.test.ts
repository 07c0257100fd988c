/**
 * The "Deliverable" table of docs/catalog-destinations.md (scripts/docs-deliverable.ts): each
 * reason a row with its count, and the fields only the user knows named after their destination.
 */
import assert from 'node:assert/strict';
import {
  type DeliverableResults,
  deliverableTable,
  NOT_DELIVERED,
} from '../../../scripts/docs-deliverable.ts';

describe('scripts: docs-deliverable', () => {
  it('names the fields only the user knows after each destination, and counts every reason', () => {
    const results: DeliverableResults = {
      verified: 5,
      deliverable: [{ slug: 'braze', events: ['purchase', 'identify'], batched: ['purchase'] }],
      not_delivered: [
        { slug: 'kafka', why: 'user-value', fields: ['topic'] },
        { slug: 'slack', why: 'user-value', fields: ['url', 'text'] },
        { slug: 'segment', why: 'no-request', example: 'purchase: succeeded without a request' },
        { slug: 'twilio-studio', why: 'segment-service' },
      ],
    };
    const table = deliverableTable(results);
    assert.match(table, /^\*\*1 of the 5 verified destinations deliver\*\*/);
    assert.match(table, /default: braze\./);
    assert.ok(
      table.includes(`| ${NOT_DELIVERED['user-value']} | 2 | kafka (\`topic\`), slack (\`url\`, \`text\`) |`),
    );
    assert.ok(table.includes(`| ${NOT_DELIVERED['no-request']} | 1 | segment |`));
    assert.ok(table.includes(`| ${NOT_DELIVERED['segment-service']} | 1 | twilio-studio |`));
    assert.ok(table.includes(`| ${NOT_DELIVERED.audience} | 0 |  |`));
    assert.match(
      table,
      /\*\*1 deliver with the suggested mappings alone; 0 with them and the actions whose batching Segment forces set up as their user sets them up; 0 delivered with values the user supplied\*\*/,
    );
  });

  it('counts apart the destinations delivered with values the user supplied, and names what was typed', () => {
    const table = deliverableTable({
      verified: 3,
      deliverable: [
        { slug: 'braze', events: ['purchase'] },
        { slug: 'slack', events: ['purchase'], supplied: ['postToChannel.url', 'postToChannel.when'] },
      ],
      not_delivered: [],
    });
    assert.match(
      table,
      /\*\*1 deliver with the suggested mappings alone; 0 with them .*; 1 delivered with values the user supplied\*\*/,
    );
    assert.ok(table.includes('| slack | `postToChannel.url`, `postToChannel.when` |'));
    assert.ok(!table.includes('| braze |'));
  });

  it('counts apart the destinations whose forced-batching action the user set up, and names what was typed', () => {
    const table = deliverableTable({
      verified: 3,
      deliverable: [
        { slug: 'braze', events: ['purchase'] },
        {
          slug: 'hubspot',
          events: ['purchase', 'identify'],
          batched: ['purchase'],
          forced: ['upsertObject.when', 'upsertObject.object_details'],
        },
        { slug: 'slack', events: ['purchase'], supplied: ['postToChannel.url'] },
      ],
      not_delivered: [],
    });
    assert.match(
      table,
      /\*\*1 deliver with the suggested mappings alone; 1 with them and the actions whose batching Segment forces set up as their user sets them up; 1 delivered with values the user supplied\*\*/,
    );
    assert.ok(table.includes('| hubspot | `upsertObject.when`, `upsertObject.object_details` |'));
    assert.ok(!table.includes('| hubspot | purchase'));
  });
});
