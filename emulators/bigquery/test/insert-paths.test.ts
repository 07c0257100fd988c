import assert from 'node:assert/strict';
import { type Harness, startHarness } from './support/helpers.ts';

/**
 * insertAll stores plainly valid rows through a JSON-text statement and the rest through the
 * appender (by position). Both must store the same values whatever the schema looks like.
 */
describe('BigQuery emulator: both insert paths agree', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness('p');
  });
  afterEach(() => h.stop());

  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${h.emulator.url}/bigquery/v2/projects/p${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await r.json()) as Record<string, unknown>;
    assert.ok(
      r.status < 300 && !json['insertErrors'],
      `${method} ${path}: ${r.status} ${JSON.stringify(json)}`,
    );
    return json;
  };
  const rowsOf = (answer: Record<string, unknown>) =>
    ((answer['rows'] ?? []) as { f: { v: unknown }[] }[]).map((r) => r.f.map((c) => c.v));
  const table = (fields: unknown[]) =>
    call('POST', '/datasets/d/tables', {
      tableReference: { projectId: 'p', datasetId: 'd', tableId: 't' },
      schema: { fields },
    });

  /**
   * Inserts `text` alone (plain values: the text path) and `appended` with a DATETIME value in
   * `dt`/`c` (which sends its row through the appender), then selects `columns` from both.
   */
  const insertBothWays = async (
    text: Record<string, unknown>,
    appended: Record<string, unknown>,
    columns: string,
    orderBy: string,
  ) => {
    const datetime = '2024-01-01 00:00:00';
    await call('POST', '/datasets/d/tables/t/insertAll', { rows: [{ json: text }] });
    const withDatetime = 'id' in appended ? { ...appended, dt: datetime } : { ...appended, c: datetime };
    await call('POST', '/datasets/d/tables/t/insertAll', { rows: [{ json: withDatetime }] });
    return call('POST', '/queries', {
      query: `SELECT ${columns} FROM d.t ORDER BY ${orderBy}`,
      useLegacySql: false,
    });
  };

  it('after a patch that lists the fields in another order or adds one', async () => {
    await call('POST', '/datasets', { datasetReference: { projectId: 'p', datasetId: 'd' } });
    await table([
      { name: 'a', type: 'STRING' },
      { name: 'b', type: 'STRING' },
      { name: 'c', type: 'DATETIME' },
    ]);
    await call('PATCH', '/datasets/d/tables/t', {
      schema: {
        fields: [
          { name: 'b', type: 'STRING' },
          { name: 'x', type: 'STRING' },
          { name: 'a', type: 'STRING' },
          { name: 'c', type: 'DATETIME' },
        ],
      },
    });
    const q = await insertBothWays(
      { a: 'A1', b: 'B1', x: 'X1' },
      { a: 'A2', b: 'B2', x: 'X2' },
      'a, b, x',
      'a',
    );
    assert.deepEqual(rowsOf(q), [
      ['A1', 'B1', 'X1'],
      ['A2', 'B2', 'X2'],
    ]);
  });

  it('for a REPEATED field named __proto__ left out of the row (an empty array on both)', async () => {
    await call('POST', '/datasets', { datasetReference: { projectId: 'p', datasetId: 'd' } });
    await table([
      { name: 'id', type: 'STRING' },
      { name: '__proto__', type: 'STRING', mode: 'REPEATED' },
      { name: 'dt', type: 'DATETIME' },
    ]);
    const q = await insertBothWays(
      { id: 'text' },
      { id: 'appender' },
      'id, `__proto__` IS NULL AS missing, ARRAY_LENGTH(`__proto__`) AS n',
      'id',
    );
    assert.deepEqual(rowsOf(q), [
      ['appender', 'false', '0'],
      ['text', 'false', '0'],
    ]);
  });
});
