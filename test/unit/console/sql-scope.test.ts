/**
 * What the console's SQL may read (core/console/sql-scope.ts): a dry run's referenced tables and
 * routines in the environment's own datasets, and INFORMATION_SCHEMA found in the query's text as
 * GoogleSQL reads it (strings and comments skipped, quoted names decoded). Over the emulator, with
 * the studio's route: test/studio/console-sql-scope.test.ts.
 */
import assert from 'node:assert/strict';
import {
  informationSchemaOutside,
  informationSchemaPaths,
  referenceOutside,
  type SqlScope,
} from '../../../core/console/sql-scope.ts';

const SCOPE: SqlScope = { project: 'shop-prod', datasets: ['events', 'eventbus_ops'] };

describe('console: the datasets its SQL may read', () => {
  it('allows tables and routines of the own datasets, and names the first one outside', () => {
    const own = [
      { projectId: 'shop-prod', datasetId: 'events', tableId: 'events_dedup' },
      { projectId: 'shop-prod', datasetId: 'eventbus_ops', tableId: 'sync_runs' },
      { projectId: 'shop-prod', datasetId: 'events', routineId: 'clean_url' },
    ];
    assert.equal(referenceOutside(own, SCOPE), undefined);
    assert.equal(referenceOutside([], SCOPE), undefined);
    for (const [ref, name] of [
      [{ projectId: 'shop-prod', datasetId: 'crm', tableId: 'customers' }, 'shop-prod.crm.customers'],
      [{ projectId: 'other', datasetId: 'events', tableId: 'events' }, 'other.events.events'],
      [{ projectId: 'shop-prod', datasetId: 'hr', routineId: 'salaries' }, 'shop-prod.hr.salaries'],
      [{ datasetId: 'events', tableId: 'events' }, 'events.events'],
    ] as const) {
      const why = referenceOutside([...own, ref], SCOPE);
      assert.equal(
        why,
        `reads ${name}, outside this environment: a query here reads only shop-prod.events and shop-prod.eventbus_ops`,
      );
    }
  });

  it('allows INFORMATION_SCHEMA of an own dataset, by its name or with the project', () => {
    for (const sql of [
      'SELECT * FROM events.INFORMATION_SCHEMA.TABLES',
      'SELECT * FROM eventbus_ops.information_schema.columns',
      'SELECT * FROM `shop-prod`.events.INFORMATION_SCHEMA.TABLES',
      'SELECT * FROM shop-prod.events.INFORMATION_SCHEMA.PARTITIONS',
      'SELECT * FROM `shop-prod.eventbus_ops.INFORMATION_SCHEMA.TABLES`',
      'SELECT * FROM `SHOP-PROD.events`.INFORMATION_SCHEMA.TABLES',
      'SELECT * FROM events . /* spaced */ INFORMATION_SCHEMA . TABLES',
    ])
      assert.equal(informationSchemaOutside(sql, SCOPE), undefined, sql);
  });

  it('refuses INFORMATION_SCHEMA of a region, another dataset or project, or none named, naming it', () => {
    for (const [sql, name] of [
      ['SELECT * FROM `region-eu`.INFORMATION_SCHEMA.JOBS', 'region-eu.INFORMATION_SCHEMA.JOBS'],
      ['SELECT * FROM region-us.INFORMATION_SCHEMA.SCHEMATA', 'region-us.INFORMATION_SCHEMA.SCHEMATA'],
      [
        'SELECT * FROM `shop-prod.region-eu.INFORMATION_SCHEMA.JOBS`',
        'shop-prod.region-eu.INFORMATION_SCHEMA.JOBS',
      ],
      ['SELECT * FROM crm.INFORMATION_SCHEMA.TABLES', 'crm.INFORMATION_SCHEMA.TABLES'],
      ['SELECT * FROM `other`.events.INFORMATION_SCHEMA.TABLES', 'other.events.INFORMATION_SCHEMA.TABLES'],
      ['SELECT * FROM Events.INFORMATION_SCHEMA.TABLES', 'Events.INFORMATION_SCHEMA.TABLES'],
      ['SELECT * FROM INFORMATION_SCHEMA.JOBS', 'INFORMATION_SCHEMA.JOBS'],
      // One own, one not: the second is found.
      [
        'SELECT * FROM events.INFORMATION_SCHEMA.TABLES JOIN crm.INFORMATION_SCHEMA.TABLES USING (table_name)',
        'crm.INFORMATION_SCHEMA.TABLES',
      ],
      // A quoted name's escapes are decoded as BigQuery decodes them.
      ['SELECT * FROM `crm.INFORMATION\\x5fSCHEMA.TABLES`', 'crm.INFORMATION_SCHEMA.TABLES'],
      // Code after a string ending in an escaped backslash, and after a comment, is read.
      ["SELECT 'a\\\\' AS s FROM crm.INFORMATION_SCHEMA.TABLES", 'crm.INFORMATION_SCHEMA.TABLES'],
      ['SELECT 1 -- note\nFROM crm.INFORMATION_SCHEMA.TABLES', 'crm.INFORMATION_SCHEMA.TABLES'],
      ["SELECT r'x' FROM crm.INFORMATION_SCHEMA.TABLES", 'crm.INFORMATION_SCHEMA.TABLES'],
    ] as const) {
      const why = informationSchemaOutside(sql, SCOPE);
      assert.ok(why?.startsWith(`reads ${name}, outside this environment`), `${sql}: ${why}`);
    }
    assert.match(
      informationSchemaOutside('SELECT * FROM INFORMATION_SCHEMA.TABLES', SCOPE) ?? '',
      /name the dataset: events\.INFORMATION_SCHEMA\.TABLES/,
    );
  });

  it('reads past strings and comments as GoogleSQL does', () => {
    assert.deepEqual(
      informationSchemaPaths(
        [
          'SELECT \'crm.INFORMATION_SCHEMA.TABLES\', "it\\"s INFORMATION_SCHEMA",',
          "  '''INFORMATION_SCHEMA ' '' ''', r\"\"\"x.INFORMATION_SCHEMA\"\"\", b'INFORMATION_SCHEMA'",
          '-- crm.INFORMATION_SCHEMA.TABLES',
          '# crm.INFORMATION_SCHEMA.TABLES',
          '/* crm.INFORMATION_SCHEMA.TABLES */',
          'FROM events_dedup',
        ].join('\n'),
      ),
      [],
    );
    assert.deepEqual(informationSchemaPaths('SELECT a.b FROM `p.d`.INFORMATION_SCHEMA.TABLES t'), [
      ['p', 'd', 'INFORMATION_SCHEMA', 'TABLES'],
    ]);
  });
});
