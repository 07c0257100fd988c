/**
 * The streaming buffer as DML meets it, through Google's client: UPDATE, DELETE and MERGE that
 * would change rows insertAll wrote less than the buffer time ago are refused in BigQuery's words
 * and change nothing; rows written otherwise, or aged out of the buffer, are free.
 */
import assert from 'node:assert/strict';
import { type Harness, rejectsWith, startHarness } from './support/helpers.ts';

const REFUSED =
  /UPDATE or DELETE statement over table test-project\.erasure\.events would affect rows in the streaming buffer, which is not supported/;

describe('bigquery emulator: the streaming buffer refuses DML over fresh streamed rows', () => {
  let h: Harness;
  const count = async (where = 'TRUE') => {
    const [rows] = await h.bq.query(`SELECT COUNT(*) AS n FROM erasure.events WHERE ${where}`);
    return (rows[0] as { n: number }).n;
  };
  before(async () => {
    h = await startHarness();
    await h.bq.createDataset('erasure');
  });
  after(() => h.stop());
  beforeEach(async () => {
    await h.bq.query('DROP TABLE IF EXISTS erasure.events');
    await h.bq.dataset('erasure').createTable('events', {
      schema: [
        { name: 'user_id', type: 'STRING' },
        { name: 'n', type: 'INT64' },
      ],
    });
    // Rows written by DML are not in the buffer.
    await h.bq.query("INSERT INTO erasure.events (user_id, n) VALUES ('old', 1), ('old', 2)");
    await h.bq
      .dataset('erasure')
      .table('events')
      .insert([
        { user_id: 'fresh', n: 3 },
        { user_id: 'fresh', n: 4 },
      ]);
  });

  it('refuses a DELETE, an UPDATE and a MERGE that touch streamed rows: 400 invalidQuery, nothing changed', async () => {
    for (const sql of [
      "DELETE FROM erasure.events WHERE user_id = 'fresh'",
      "UPDATE erasure.events SET n = 0 WHERE user_id = 'fresh'",
      'DELETE FROM erasure.events WHERE TRUE',
      "MERGE erasure.events T USING (SELECT 'fresh' AS user_id) S ON T.user_id = S.user_id WHEN MATCHED THEN DELETE",
    ])
      await rejectsWith(h.bq.query(sql), 400, 'invalidQuery', REFUSED);
    assert.equal(await count(), 4);
    assert.equal(await count('n = 0'), 0);
  });

  it('lets DML change rows outside the buffer while streamed rows are in it', async () => {
    await h.bq.query("DELETE FROM erasure.events WHERE user_id = 'old' AND n = 1");
    await h.bq.query("UPDATE erasure.events SET n = 20 WHERE user_id = 'old'");
    await h.bq.query(
      "MERGE erasure.events T USING (SELECT 'new' AS user_id) S ON T.user_id = S.user_id WHEN NOT MATCHED THEN INSERT (user_id, n) VALUES (S.user_id, 5)",
    );
    assert.equal(await count(), 4);
    assert.equal(await count('n = 20'), 1);
  });

  it('reports the buffer on tables.get while it holds rows', async () => {
    const [meta] = await h.bq.dataset('erasure').table('events').getMetadata();
    assert.equal(meta.streamingBuffer?.estimatedRows, '2');
    assert.ok(Number(meta.streamingBuffer?.oldestEntryTime) > Date.now() - 60_000);
  });

  it('lets the same DELETE through once the buffer is aged past its time (POST /emulator/streaming-buffer:age)', async () => {
    const partly = await fetch(`${h.emulator.url}/emulator/streaming-buffer:age?ageMs=1000`, {
      method: 'POST',
    });
    assert.equal(partly.status, 200);
    await rejectsWith(
      h.bq.query("DELETE FROM erasure.events WHERE user_id = 'fresh'"),
      400,
      'invalidQuery',
      REFUSED,
    );
    const all = await fetch(`${h.emulator.url}/emulator/streaming-buffer:age?ageMs=30000`, {
      method: 'POST',
    });
    assert.equal(all.status, 200);
    const [job] = await h.bq.createQueryJob("DELETE FROM erasure.events WHERE user_id = 'fresh'");
    await job.getQueryResults();
    const [meta] = await job.getMetadata();
    assert.equal(meta.statistics.query.numDmlAffectedRows, '2');
    assert.equal(await count(), 2);
    const [table] = await h.bq.dataset('erasure').table('events').getMetadata();
    assert.equal(table.streamingBuffer, undefined);
  });

  it('keeps rows streamed later in the buffer after an age (ageStreamingBuffer from code)', async () => {
    h.emulator.ageStreamingBuffer();
    await h.bq
      .dataset('erasure')
      .table('events')
      .insert([{ user_id: 'later', n: 9 }]);
    await h.bq.query("DELETE FROM erasure.events WHERE user_id = 'fresh'");
    await rejectsWith(
      h.bq.query("DELETE FROM erasure.events WHERE user_id = 'later'"),
      400,
      'invalidQuery',
      REFUSED,
    );
  });
});

describe('bigquery emulator: the streaming buffer time is an option', () => {
  it('ends the refusal by itself once streamingBufferMs has passed', async () => {
    const { startBigQueryEmulator } = await import('../server.ts');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { BigQuery } = await import('@google-cloud/bigquery');
    const dataDir = mkdtempSync(join(tmpdir(), 'bq-emu-'));
    const emulator = await startBigQueryEmulator({ port: 0, dataDir, streamingBufferMs: 300 });
    try {
      const bq = new BigQuery({ projectId: 'test-project', apiEndpoint: emulator.url });
      await bq.createDataset('erasure');
      await bq.dataset('erasure').createTable('events', { schema: 'user_id:STRING' });
      await bq
        .dataset('erasure')
        .table('events')
        .insert([{ user_id: 'u' }]);
      await rejectsWith(
        bq.query("DELETE FROM erasure.events WHERE user_id = 'u'"),
        400,
        'invalidQuery',
        REFUSED,
      );
      await new Promise((r) => setTimeout(r, 350));
      await bq.query("DELETE FROM erasure.events WHERE user_id = 'u'");
    } finally {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
