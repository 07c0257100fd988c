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
      verified: 4,
      deliverable: [{ slug: 'braze', events: ['purchase', 'identify'], batched: ['purchase'] }],
      not_delivered: [
        { slug: 'kafka', why: 'user-value', fields: ['topic'] },
        { slug: 'slack', why: 'user-value', fields: ['url', 'text'] },
        { slug: 'segment', why: 'no-request', example: 'purchase: succeeded without a request' },
      ],
    };
    const table = deliverableTable(results);
    assert.match(table, /^\*\*1 of the 4 verified destinations deliver\*\*/);
    assert.match(table, /default: braze\./);
    assert.ok(
      table.includes(`| ${NOT_DELIVERED['user-value']} | 2 | kafka (\`topic\`), slack (\`url\`, \`text\`) |`),
    );
    assert.ok(table.includes(`| ${NOT_DELIVERED['no-request']} | 1 | segment |`));
    assert.ok(table.includes(`| ${NOT_DELIVERED.audience} | 0 |  |`));
  });
});
