/**
 * Column-level security provisioned locally (local/provision.ts): with the program's `pii` tag,
 * the warehouse tables' PII columns carry it (core/warehouse/pii-columns.ts), as `pulumi up` puts
 * it; a table made before column security was on takes the tags in place; a third run changes
 * nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { plan } from '../../core/plan.ts';
import { PII_COLUMNS } from '../../core/warehouse/pii-columns.ts';
import { TABLES } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { readSettingsFile } from '../../local/settings-file.ts';

const root = resolve(import.meta.dirname, '../..');
const settings = readSettingsFile(join(root, 'environments/local.yaml'));
const TAG = 'projects/local-project/locations/eu/taxonomies/1111/policyTags/2222';

interface Field {
  name: string;
  fields?: Field[];
  policyTags?: { names: string[] };
}
const taggedPaths = (fields: readonly Field[], prefix = ''): string[] =>
  fields.flatMap((f) =>
    f.fields
      ? taggedPaths(f.fields, `${prefix}${f.name}.`)
      : f.policyTags?.names.includes(TAG)
        ? [`${prefix}${f.name}`]
        : [],
  );

describe('local provisioning: the pii policy tag on the warehouse’s PII columns', function () {
  this.timeout(60_000);
  let dir: string;
  let emu: BigQueryEmulator;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'provision-pii-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir, streamingBufferMs: 0 });
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (piiTag?: string) =>
    provision(plan(settings), {
      project: settings.project,
      bigquery: emu.url,
      ...(piiTag ? { piiTag } : {}),
      functionUrl: () => 'http://127.0.0.1:1/',
    });
  const tagsOf = async (table: string) => {
    const [meta] = await emulatorBigQuery(settings.project, emu.url)
      .dataset(settings.dataset ?? 'events')
      .table(table)
      .getMetadata();
    return taggedPaths((meta as { schema: { fields: Field[] } }).schema.fields).sort();
  };

  it('tags an untagged warehouse in place, then finds nothing to change', async () => {
    await run();
    assert.deepEqual(await tagsOf(TABLES.events), []);
    const tagged = await run(TAG);
    assert.ok(
      tagged.updated.includes(`table ${TABLES.events} (policy tags on its PII columns)`),
      JSON.stringify(tagged),
    );
    assert.deepEqual(await tagsOf(TABLES.events), [...(PII_COLUMNS[TABLES.events] ?? [])].sort());
    assert.deepEqual(await tagsOf(TABLES.invalidEvents), ['payload']);
    const again = await run(TAG);
    assert.deepEqual(again.updated, []);
  });
});
