/**
 * The XML API's bucket listing (`GET /<bucket>`, what a signed list URL reads): prefix, delimiter,
 * marker (start after) and max-keys over a bucket with names before, inside and after the prefix.
 * IAM off: the caller is the owner, no signature needed.
 */
import assert from 'node:assert/strict';
import { type Running, start } from './support/harness.ts';

const BUCKET = 'xml-list';

describe('storage emulator: the XML listing', () => {
  let run: Running;

  before(async () => {
    run = await start();
    const [bucket] = await run.storage.createBucket(BUCKET);
    for (const name of ['0', 'a/1', 'a/2', 'a/b/3', 'a/b/4', 'a/c', 'b/5']) await bucket.file(name).save('x');
  });

  after(() => run.stop());

  const list = async (query: string) => {
    const res = await fetch(`${run.emulator.url}/${BUCKET}?${query}`);
    assert.equal(res.status, 200);
    const body = await res.text();
    return {
      keys: [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]),
      prefixes: [...body.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix>/g)].map((m) => m[1]),
      truncated: /<IsTruncated>true<\/IsTruncated>/.test(body),
    };
  };

  it('lists what is under a prefix, grouping by the delimiter', async () => {
    assert.deepEqual(await list('prefix=a/&delimiter=/'), {
      keys: ['a/1', 'a/2', 'a/c'],
      prefixes: ['a/b/'],
      truncated: false,
    });
    assert.deepEqual((await list('prefix=a/')).keys, ['a/1', 'a/2', 'a/b/3', 'a/b/4', 'a/c']);
    assert.deepEqual((await list('')).keys, ['0', 'a/1', 'a/2', 'a/b/3', 'a/b/4', 'a/c', 'b/5']);
  });

  it('starts after the marker, inside or outside the prefix, and stops at max-keys', async () => {
    assert.deepEqual(await list('prefix=a/&delimiter=/&marker=a/1'), {
      keys: ['a/2', 'a/c'],
      prefixes: ['a/b/'],
      truncated: false,
    });
    assert.deepEqual((await list('prefix=a/&marker=0')).keys, ['a/1', 'a/2', 'a/b/3', 'a/b/4', 'a/c']);
    assert.deepEqual((await list('prefix=a/&marker=b')).keys, []);
    assert.deepEqual(await list('prefix=a/&max-keys=2'), {
      keys: ['a/1', 'a/2'],
      prefixes: [],
      truncated: true,
    });
  });
});
