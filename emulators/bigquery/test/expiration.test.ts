/**
 * Table `expirationTime` and partition expiration (`timePartitioning.expirationMs`), through
 * Google's client: what has expired is gone, and `INFORMATION_SCHEMA.PARTITIONS` shows what is left.
 */
import assert from 'node:assert/strict';
import { type Harness, plain, rejectsWith, startHarness } from './support/helpers.ts';

const DAY = 86_400_000;
const day = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);

describe('bigquery emulator: tables and partitions expire', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await h.bq.createDataset('ret');
  });
  after(() => h.stop());

  it('drops the partitions older than expirationMs, and PARTITIONS lists the ones left', async () => {
    const [table] = await h.bq.dataset('ret').createTable('events', {
      schema: 'event_id:STRING,event_time:TIMESTAMP',
      timePartitioning: { type: 'DAY', field: 'event_time', expirationMs: String(3 * DAY) },
    });
    await h.bq.query(`INSERT INTO ret.events (event_id, event_time) VALUES
      ('old', TIMESTAMP '${day(10)} 12:00:00'), ('edge', TIMESTAMP '${day(3)} 00:00:00'),
      ('recent', TIMESTAMP '${day(1)} 08:00:00'), ('today', CURRENT_TIMESTAMP())`);
    const [rows] = await h.bq.query('SELECT event_id FROM ret.events ORDER BY event_id');
    assert.deepEqual(plain(rows), [{ event_id: 'recent' }, { event_id: 'today' }]);
    const [parts] = await h.bq.query(
      "SELECT table_name, partition_id, total_rows FROM ret.INFORMATION_SCHEMA.PARTITIONS WHERE table_name = 'events' ORDER BY partition_id",
    );
    assert.deepEqual(plain(parts), [
      { table_name: 'events', partition_id: day(1).replaceAll('-', ''), total_rows: 1 },
      { table_name: 'events', partition_id: day(0).replaceAll('-', ''), total_rows: 1 },
    ]);
    const [listed] = await table.getRows();
    assert.equal(listed.length, 2);
  });

  it('lists an unpartitioned table as one partition with a NULL id', async () => {
    await h.bq.query("CREATE TABLE ret.flat AS SELECT 'a' AS x UNION ALL SELECT 'b'");
    const [parts] = await h.bq.query(
      "SELECT partition_id, total_rows FROM ret.INFORMATION_SCHEMA.PARTITIONS WHERE table_name = 'flat'",
    );
    assert.deepEqual(plain(parts), [{ partition_id: null, total_rows: 2 }]);
  });

  it('deletes a table once its expirationTime has passed', async () => {
    const [table] = await h.bq.dataset('ret').createTable('scratch', {
      schema: 'x:STRING',
      expirationTime: String(Date.now() + 400),
    });
    await table.insert([{ x: 'a' }]);
    assert.equal((await table.exists())[0], true);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await table.exists())[0], false);
    await rejectsWith(h.bq.query('SELECT * FROM ret.scratch'), 404, 'notFound', /scratch/);
    const [names] = await h.bq.query('SELECT table_name FROM ret.INFORMATION_SCHEMA.TABLES ORDER BY 1');
    assert.deepEqual(plain(names), [{ table_name: 'events' }, { table_name: 'flat' }]);
  });

  it('honours an expirationTime set later by a patch', async () => {
    const [table] = await h.bq.dataset('ret').createTable('later', { schema: 'x:STRING' });
    await table.setMetadata({ expirationTime: String(Date.now() - 1) });
    assert.equal((await table.exists())[0], false);
  });
});
