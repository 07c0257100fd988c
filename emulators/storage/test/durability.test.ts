/**
 * Durability of the Cloud Storage emulator, run as its own process and killed with SIGKILL:
 * every upload it answered is there after a restart, byte for byte; a resumable upload cut off
 * mid-way resumes from the offset the restarted emulator reports; a second emulator on the same
 * data directory is refused; deleted objects' files are gone after a restart.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { call, exited, launch, tempDir } from './support/harness.ts';

function client(url: string): Storage {
  return new Storage({ apiEndpoint: url, projectId: 'p', retryOptions: { autoRetry: false } });
}

function bytesOf(i: number): Buffer {
  const b = Buffer.alloc(1000 + ((i * 7717) % 300_000));
  for (let k = 0; k < b.length; k += 97) b[k] = (i + k) & 0xff;
  return b;
}

describe('storage emulator durability', function () {
  this.timeout(120_000);
  const dataDir = tempDir();
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function kill(child: ChildProcess): Promise<void> {
    child.kill('SIGKILL');
    await exited(child);
  }

  it('keeps every answered upload across kill -9 in the middle of others', async () => {
    const first = await launch(dataDir);
    children.push(first.child);
    const gcs = client(first.url);
    await gcs.createBucket('durable');
    const bucket = gcs.bucket('durable');
    const acked = new Map<string, Buffer>();
    let i = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const k = i++;
        const name = `obj/${k}`;
        const bytes = bytesOf(k);
        try {
          await bucket.file(name).save(bytes, { resumable: k % 3 === 0 });
        } catch {
          return;
        }
        acked.set(name, bytes);
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    while (acked.size < 40) await new Promise((r) => setTimeout(r, 5));
    await kill(first.child);
    await Promise.all(workers);
    assert.ok(acked.size >= 40);

    const second = await launch(dataDir);
    children.push(second.child);
    const again = client(second.url).bucket('durable');
    for (const [name, bytes] of acked) {
      const [back] = await again.file(name).download();
      assert.ok(back.equals(bytes), `${name} came back different`);
    }
    const [listed] = await again.getFiles({ prefix: 'obj/' });
    assert.ok(listed.length >= acked.size);
    await kill(second.child);
  });

  it('resumes a resumable upload cut off by kill -9 from the offset the restarted emulator reports', async () => {
    const first = await launch(dataDir);
    children.push(first.child);
    await client(first.url).createBucket('resume');
    const whole = Buffer.alloc(3 * 256 * 1024 + 1234);
    for (let k = 0; k < whole.length; k++) whole[k] = (k * 31) & 0xff;
    const startRes = await call(
      `${first.url}/upload/storage/v1/b/resume/o?uploadType=resumable&name=big.bin`,
      'POST',
      {
        contentType: 'application/octet-stream',
      },
    );
    assert.equal(startRes.status, 200);
    const session = new URL(startRes.headers.get('location') ?? '');
    const chunk = 256 * 1024;
    const put1 = await call(
      `${first.url}${session.pathname}${session.search}`,
      'PUT',
      whole.subarray(0, chunk),
      {
        'content-range': `bytes 0-${chunk - 1}/*`,
      },
    );
    assert.equal(put1.status, 308);
    assert.equal(put1.headers.get('range'), `bytes=0-${chunk - 1}`);

    // The next request brings half of the rest, then the emulator dies before the body ends.
    const port = Number(new URL(first.url).port);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: `${session.pathname}${session.search}`,
        headers: {
          'content-range': `bytes ${chunk}-*/${whole.length}`,
          'content-length': whole.length - chunk,
        },
      });
      req.on('error', () => resolve());
      req.write(whole.subarray(chunk, chunk * 2));
      setTimeout(() => {
        void kill(first.child).then(resolve);
      }, 300);
    });

    const second = await launch(dataDir);
    children.push(second.child);
    const target = `${second.url}${session.pathname}${session.search}`;
    const status = await call(target, 'PUT', undefined, { 'content-range': 'bytes */*' });
    assert.equal(status.status, 308);
    const held = Number(/^bytes=0-(\d+)$/.exec(status.headers.get('range') ?? '')?.[1]) + 1;
    assert.ok(held >= chunk && held <= whole.length, `held ${held}`);
    const done = await call(target, 'PUT', whole.subarray(held), {
      'content-range': `bytes ${held}-${whole.length - 1}/${whole.length}`,
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json?.md5Hash, createHash('md5').update(whole).digest('base64'));
    const [back] = await client(second.url).bucket('resume').file('big.bin').download();
    assert.ok(back.equals(whole));
    const after = await call(target, 'PUT', undefined, { 'content-range': 'bytes */*' });
    assert.equal(after.status, 200, 'a completed session answers with its object');
    await kill(second.child);
  });

  it('refuses a second emulator on a live data directory and drops deleted files on restart', async () => {
    const first = await launch(dataDir);
    children.push(first.child);
    await assert.rejects(launch(dataDir), /data directory/);
    const bucket = client(first.url).bucket('durable');
    const [files] = await bucket.getFiles({ prefix: 'obj/' });
    await Promise.all(files.slice(0, 10).map((f) => f.delete()));
    await kill(first.child);
    const second = await launch(dataDir);
    children.push(second.child);
    const [left] = await client(second.url).bucket('durable').getFiles();
    const [resumed] = await client(second.url).bucket('resume').getFiles();
    assert.equal(readdirSync(join(dataDir, 'blobs')).length, left.length + resumed.length);
    // Resumable sessions open at the first kill stay open (a week, as in Cloud Storage): at most one per worker.
    assert.ok(readdirSync(join(dataDir, 'uploads')).length <= 6);
    await kill(second.child);
  });
});
