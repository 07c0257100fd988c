/**
 * The Cloud Storage emulator driven by Google's own client (@google-cloud/storage), unchanged,
 * found through STORAGE_EMULATOR_HOST: the calls the registry and syncs make, and the answers
 * the client relies on (hashes it validates, 412s it turns into errors, pages it follows).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Bucket } from '@google-cloud/storage';
import { Storage } from '@google-cloud/storage';
import { crc32c } from '@node-rs/crc32';
import { crcBase64 } from '../blobs.ts';
import { call, emulatorWithFreshBuckets, type Running } from './support/harness.ts';

/** The HTTP status of a client error: `code` for API calls, `response.status` for upload session starts. */
function codeOf(err: unknown): unknown {
  const e = err as { code?: unknown; response?: { status?: unknown } };
  return typeof e.code === 'number' ? e.code : e.response?.status;
}

async function refused(p: Promise<unknown>, code: number): Promise<Error> {
  try {
    await p;
  } catch (err) {
    assert.equal(codeOf(err), code, String(err));
    return err as Error;
  }
  assert.fail(`expected a ${code}`);
}

describe('storage emulator with the Google client', () => {
  const fx = emulatorWithFreshBuckets('bucket');
  let run: Running;
  let bucket: Bucket;
  let n = 0;
  beforeEach(() => {
    ({ run, bucket, n } = fx);
  });

  it('creates, reads, lists, patches and deletes buckets, with Cloud Storage errors', async () => {
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.name, bucket.name);
    assert.equal(meta.metageneration, '1');
    assert.equal((await bucket.exists())[0], true);
    assert.equal((await run.storage.bucket('no-such-bucket').exists())[0], false);
    const dup = await refused(run.storage.createBucket(bucket.name), 409);
    assert.match(dup.message, /already own it/);
    await refused(run.storage.createBucket('Bad_Name!'), 400);
    await refused(run.storage.createBucket('my-google-bucket'), 400);

    await bucket.setMetadata({ labels: { team: 'data', env: 'dev' } });
    await bucket.setMetadata({ labels: { env: null } });
    const [patched] = await bucket.getMetadata();
    assert.deepEqual(patched.labels, { team: 'data' });
    assert.equal(patched.metageneration, '3');

    const [buckets] = await run.storage.getBuckets({ prefix: bucket.name });
    assert.deepEqual(
      buckets.map((b) => b.name),
      [bucket.name],
    );

    await bucket.file('x').save('x');
    const notEmpty = await refused(bucket.delete(), 409);
    assert.match(notEmpty.message, /not empty/);
    await bucket.file('x').delete();
    await bucket.delete();
    await refused(bucket.getMetadata(), 404);
  });

  it('stores simple, multipart and resumable uploads with the MD5 and CRC32C the client checks', async () => {
    const small = Buffer.from('hello, storage');
    const large = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < large.length; i++) large[i] = (i * 7919) & 0xff;
    await bucket.file('simple.txt').save(small, { resumable: false, contentType: 'text/plain' });
    await bucket.file('resumable.bin').save(large, { resumable: true, chunkSize: 1024 * 1024 });
    await bucket.file('single-shot.bin').save(large, { resumable: true });
    await bucket.upload(join(import.meta.dirname, 'client.test.ts'), { destination: 'dir/source.ts' });
    for (const [name, bytes] of [
      ['simple.txt', small],
      ['resumable.bin', large],
      ['single-shot.bin', large],
    ] as const) {
      const [meta] = await bucket.file(name).getMetadata();
      assert.equal(meta.size, String(bytes.length), name);
      assert.equal(meta.md5Hash, createHash('md5').update(bytes).digest('base64'), name);
      assert.equal(meta.crc32c, crcBase64(crc32c(bytes)), name);
      const [back] = await bucket.file(name).download({ validation: 'md5' });
      assert.ok(back.equals(bytes), name);
    }
    assert.equal((await bucket.file('simple.txt').getMetadata())[0].contentType, 'text/plain');
  });

  it('refuses an upload whose bytes do not match the hash the client sent', async () => {
    const url = `${run.emulator.url}/upload/storage/v1/b/${bucket.name}/o?uploadType=media&name=h.txt`;
    const res = await call(url, 'POST', 'abc', {
      'x-goog-hash': `md5=${Buffer.alloc(16).toString('base64')}`,
    });
    assert.equal(res.status, 400);
    const error = res.json?.error as { message: string };
    assert.deepEqual(Object.keys(error).sort(), ['code', 'errors', 'message']);
    assert.match(error.message, /MD5/);
    assert.equal((await bucket.file('h.txt').exists())[0], false);
  });

  it('answers downloads with hashes the client validates: a corrupted file is caught', async () => {
    await bucket.file('v.txt').save('the original bytes', { resumable: false });
    const blobs = join(run.dataDir, 'blobs');
    const [meta] = await bucket.file('v.txt').getMetadata();
    const blob = readdirSync(blobs).find((f) =>
      Buffer.from('the original bytes').equals(readFileSync(join(blobs, f))),
    );
    assert.ok(blob, `blob of generation ${meta.generation}`);
    writeFileSync(join(blobs, blob), 'the 0riginal bytes');
    await assert.rejects(bucket.file('v.txt').download(), /downloaded data did not match/);
  });

  it('keeps generations: ifGenerationMatch=0 creates only if absent, stale writers get 412', async () => {
    const file = bucket.file('index.json');
    await file.save('{"v":1}', { preconditionOpts: { ifGenerationMatch: 0 }, resumable: false });
    await refused(
      file.save('{"v":2}', { preconditionOpts: { ifGenerationMatch: 0 }, resumable: false }),
      412,
    );
    const [meta] = await file.getMetadata();
    const gen = Number(meta.generation);
    await file.save('{"v":2}', { preconditionOpts: { ifGenerationMatch: gen }, resumable: false });
    await refused(
      file.save('{"v":3}', { preconditionOpts: { ifGenerationMatch: gen }, resumable: true }),
      412,
    );
    assert.equal((await file.download())[0].toString(), '{"v":2}');
    const [now] = await file.getMetadata();
    assert.ok(Number(now.generation) > gen);
    await refused(file.setMetadata({ metadata: { a: '1' } }, { ifMetagenerationMatch: 9 }), 412);
    await file.setMetadata({ metadata: { a: '1' } }, { ifMetagenerationMatch: 1 });
    const [after] = await file.getMetadata();
    assert.equal(after.metageneration, '2');
    assert.deepEqual(after.metadata, { a: '1' });
    await refused(file.delete({ ifGenerationMatch: gen }), 412);
  });

  it('lists with prefix, delimiter, offsets and pages, in byte order', async () => {
    const names = ['a/1', 'a/2', 'a/b/3', 'a/c/4', 'b/5', 'c', 'é', '\u{1F600}', '\uFF21'];
    await Promise.all(names.map((name) => bucket.file(name).save(name, { resumable: false })));
    const [all] = await bucket.getFiles();
    const bytes = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    assert.deepEqual(
      all.map((f) => f.name),
      bytes,
    );
    const [files, , api] = await bucket.getFiles({ prefix: 'a/', delimiter: '/', autoPaginate: false });
    assert.deepEqual(
      files.map((f) => f.name),
      ['a/1', 'a/2'],
    );
    assert.deepEqual((api as { prefixes: string[] }).prefixes, ['a/b/', 'a/c/']);
    const [ranged] = await bucket.getFiles({ startOffset: 'a/2', endOffset: 'c' });
    assert.deepEqual(
      ranged.map((f) => f.name),
      ['a/2', 'a/b/3', 'a/c/4', 'b/5'],
    );
    const seen: string[] = [];
    let query: Record<string, unknown> | null = { maxResults: 2, autoPaginate: false };
    let pages = 0;
    while (query) {
      const [page, next]: [{ name: string }[], Record<string, unknown> | null] = (await bucket.getFiles(
        query,
      )) as never;
      seen.push(...page.map((f) => f.name));
      query = next;
      pages += 1;
    }
    assert.deepEqual(seen, bytes);
    assert.equal(pages, Math.ceil(bytes.length / 2));
  });

  it('moves atomically, filters by matchGlob and answers partial responses (fields)', async () => {
    await Promise.all(['logs/a.csv', 'logs/b.json', 'logs/2026/c.csv'].map((n) => bucket.file(n).save(n)));
    const [csv] = await bucket.getFiles({ matchGlob: 'logs/**.csv' });
    assert.deepEqual(
      csv.map((f) => f.name),
      ['logs/2026/c.csv', 'logs/a.csv'],
    );
    // With `fields`, the client hands back the selected fields themselves.
    const [names] = await bucket.getFiles({ fields: 'items(name)' });
    assert.deepEqual(names, [{ name: 'logs/2026/c.csv' }, { name: 'logs/a.csv' }, { name: 'logs/b.json' }]);
    const [before] = await bucket.file('logs/a.csv').getMetadata();
    await bucket.file('logs/a.csv').moveFileAtomic('archive/a.csv');
    assert.equal((await bucket.file('logs/a.csv').exists())[0], false);
    const [moved] = await bucket.file('archive/a.csv').getMetadata();
    assert.notEqual(moved.generation, before.generation);
    assert.equal(moved.md5Hash, before.md5Hash);
    assert.equal((await bucket.file('archive/a.csv').download())[0].toString(), 'logs/a.csv');
  });

  it('reads byte ranges, copies, rewrites and composes', async () => {
    const body = Buffer.from('0123456789abcdef');
    await bucket.file('src').save(body, { resumable: false, contentType: 'text/plain' });
    assert.equal((await bucket.file('src').download({ start: 3, end: 6 }))[0].toString(), '3456');
    const tail = await call(`${run.emulator.url}/b/${bucket.name}/o/src?alt=media`, 'GET', undefined, {
      range: 'bytes=-4',
    });
    assert.equal(tail.status, 206);
    assert.equal(tail.text, 'cdef');
    const beyond = await call(`${run.emulator.url}/b/${bucket.name}/o/src?alt=media`, 'GET', undefined, {
      range: 'bytes=99-',
    });
    assert.equal(beyond.status, 416);

    await bucket.file('src').copy(bucket.file('copy'));
    const [copied] = await bucket.file('copy').getMetadata();
    assert.equal(copied.contentType, 'text/plain');
    assert.equal(copied.md5Hash, createHash('md5').update(body).digest('base64'));
    const [other] = await run.storage.createBucket(`other-${n}`);
    await bucket.file('src').copy(other.file('moved/here'));
    assert.equal((await other.file('moved/here').download())[0].toString(), body.toString());

    await bucket.combine(['src', 'copy'], 'both');
    const [both] = await bucket.file('both').getMetadata();
    assert.equal(both.componentCount, 2);
    assert.equal(both.md5Hash, undefined);
    const joined = Buffer.concat([body, body]);
    assert.equal(both.crc32c, crcBase64(crc32c(joined)));
    assert.ok((await bucket.file('both').download())[0].equals(joined));
  });

  it('keeps noncurrent generations in a versioned bucket', async () => {
    await bucket.setMetadata({ versioning: { enabled: true } });
    const file = bucket.file('doc');
    await file.save('one', { resumable: false });
    const first = (await file.getMetadata())[0].generation;
    await file.save('two', { resumable: false });
    await file.delete();
    assert.equal((await file.exists())[0], false);
    const [versions] = await bucket.getFiles({ versions: true });
    assert.equal(versions.length, 2);
    const old = bucket.file('doc', { generation: Number(first) });
    assert.equal((await old.download())[0].toString(), 'one');
    await old.delete();
    assert.equal((await bucket.getFiles({ versions: true }))[0].length, 1);
  });

  it('serves gzip-stored objects so the client inflates them', async () => {
    const text = 'compress me '.repeat(200);
    await bucket.file('z.txt').save(text, { gzip: true, resumable: false });
    const [meta] = await bucket.file('z.txt').getMetadata();
    assert.equal(meta.contentEncoding, 'gzip');
    assert.ok(Number(meta.size) < text.length);
    assert.equal((await bucket.file('z.txt').download())[0].toString(), text);
    const raw = await call(`${run.emulator.url}/b/${bucket.name}/o/z.txt?alt=media`, 'GET', undefined, {
      'accept-encoding': 'identity',
    });
    assert.equal(raw.text, text);
    assert.ok(gzipSync(text).length > 0);
  });

  it('applies name rules and answers bad requests in the JSON API error shape', async () => {
    await refused(bucket.file('line\nbreak').save('x', { resumable: false }), 400);
    await refused(bucket.file('x'.repeat(1025)).save('x', { resumable: false }), 400);
    await bucket.file('ü'.repeat(512)).save('x', { resumable: false });
    const missing = await call(`${run.emulator.url}/storage/v1/b/${bucket.name}/o/nothing`, 'GET');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json, {
      error: {
        code: 404,
        message: `No such object: ${bucket.name}/nothing`,
        errors: [{ message: `No such object: ${bucket.name}/nothing`, domain: 'global', reason: 'notFound' }],
      },
    });
    const badJson = await call(`${run.emulator.url}/storage/v1/b`, 'POST', '{not json', {
      'content-type': 'application/json',
    });
    assert.equal(badJson.status, 400);
  });

  it('serves the same API under /storage/v1 for a client given apiEndpoint', async () => {
    const before = process.env.STORAGE_EMULATOR_HOST;
    delete process.env.STORAGE_EMULATOR_HOST;
    let direct: Storage;
    try {
      direct = new Storage({ apiEndpoint: run.emulator.url, projectId: 'p' });
    } finally {
      process.env.STORAGE_EMULATOR_HOST = before;
    }
    await bucket.file('via-endpoint').save('ok', { resumable: false });
    const [back] = await direct.bucket(bucket.name).file('via-endpoint').download();
    assert.equal(back.toString(), 'ok');
  });

  it('reports dual-region placement and answers channels.stop for a channel that cannot exist', async () => {
    const [dual] = await run.storage.createBucket(`dual-${n}`, {
      location: 'US',
      customPlacementConfig: { dataLocations: ['US-EAST1', 'US-WEST1'] },
    });
    assert.equal(dual.metadata.locationType, 'dual-region');
    assert.deepEqual(dual.metadata.customPlacementConfig, { dataLocations: ['US-EAST1', 'US-WEST1'] });
    const [nam4] = await run.storage.createBucket(`nam4-${n}`, { location: 'nam4' });
    assert.equal(nam4.metadata.locationType, 'dual-region');
    assert.equal(
      bucket.metadata.locationType ?? (await bucket.getMetadata())[0].locationType,
      'multi-region',
    );

    const err = await refused(run.storage.channel('chan-1', 'resource-1').stop(), 404);
    assert.match(err.message, /^Channel 'chan-1' not found/);
  });
});
