/**
 * Cloud Storage emulator benchmark (issue 18): upload and download throughput through Google's
 * client for 1 KB, 1 MB and 100 MB objects, and listing a prefix among 100,000 objects.
 * The emulator runs as its own process with `--fsync always`, as `npm start` runs it.
 * Baselines, measured in the same run on the same disk:
 * - uploads: the same bytes written to a new file and fdatasync'd, with the same concurrency;
 * - downloads: the same file read back (from the page cache, as the emulator's reads are);
 * - listing: readdir of a directory holding the same 100,000 names, filtered by the prefix.
 * Aim: uploads of 1 MB objects at >= 0.5x the fsync baseline.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { Catalog } from '../emulators/storage/catalog.ts';
import { exited, launchEmulator } from '../test/support/emulator-process.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';

const KB = 1024;
const MB = 1024 * 1024;
const LIST_OBJECTS = 100_000;

interface Case {
  readonly label: string;
  readonly size: number;
  readonly count: number;
  readonly concurrency: number;
}

const CASES: readonly Case[] = [
  { label: '1 KB', size: KB, count: 2000, concurrency: 8 },
  { label: '1 MB', size: MB, count: 200, concurrency: 4 },
  { label: '100 MB', size: 100 * MB, count: 2, concurrency: 1 },
];

/** Quick mode: the same paths (a resumable upload included) with a few small objects. */
const QUICK_CASES: readonly Case[] = [
  { label: '1 KB', size: KB, count: 50, concurrency: 8 },
  { label: '1 MB', size: MB, count: 10, concurrency: 4 },
  { label: '16 MB', size: 16 * MB, count: 1, concurrency: 1 },
];
const QUICK_LIST_OBJECTS = 2_000;

async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** New file, write, fdatasync, close: what the disk allows for one object. */
async function writeSynced(path: string, bytes: Buffer): Promise<void> {
  const fh = await open(path, 'wx');
  try {
    await fh.write(bytes);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

function payload(size: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i += 4096) b[i] = i & 0xff;
  return b;
}

async function transfer(gcs: Storage, dir: string, c: Case): Promise<BenchFigure[]> {
  const bytes = payload(c.size);
  const bucket = gcs.bucket('bench');
  const base = join(dir, `baseline-${c.size}`);
  mkdirSync(base);
  const baseUp = await pool(c.count, c.concurrency, (i) => writeSynced(join(base, String(i)), bytes));
  const up = await pool(c.count, c.concurrency, async (i) => {
    await bucket.file(`${c.size}/${i}`).save(bytes, { resumable: c.size > 8 * MB, validation: false });
  });
  const baseDown = await pool(c.count, c.concurrency, async (i) => {
    await readFile(join(base, String(i)));
  });
  const down = await pool(c.count, c.concurrency, async (i) => {
    await bucket.file(`${c.size}/${i}`).download({ validation: false });
  });
  rmSync(base, { recursive: true, force: true });
  const mbps = (seconds: number) => (c.size * c.count) / MB / seconds;
  const detail = `${c.count} objects, ${c.concurrency} at a time; objects/s: upload ${(c.count / up).toFixed(0)}, download ${(c.count / down).toFixed(0)}`;
  return [
    {
      name: `upload ${c.label} objects (file.save)`,
      value: mbps(up),
      unit: 'MB/s',
      baseline: { name: 'new file + fdatasync', value: mbps(baseUp) },
      ...(c.size === MB ? { target: { op: '>=', value: 0.5, of: 'ratio' } as const } : {}),
      detail,
    },
    {
      name: `download ${c.label} objects (file.download)`,
      value: mbps(down),
      unit: 'MB/s',
      baseline: { name: 'readFile', value: mbps(baseDown) },
    },
  ];
}

/** Writes `objects` objects (100k in full) straight into a data directory through the catalog (no HTTP), sharing one file. */
async function fillCatalog(dataDir: string, objects: number): Promise<void> {
  const catalog = await Catalog.open(dataDir, 'none');
  const now = new Date().toISOString();
  await catalog.putBucket({
    name: 'many',
    timeCreated: now,
    updated: now,
    metageneration: 1,
    location: 'US',
    storageClass: 'STANDARD',
    labels: {},
    versioning: false,
    extra: {},
  });
  writeFileSync(catalog.blobPath('shared'), 'x');
  const digest = { size: 1, md5: 'nV3fX/3s8mWgXlbzAdzCaA==', crc32c: 'kzUVgA==' };
  for (let i = 0; i < objects; i += 1000) {
    await Promise.all(
      Array.from({ length: 1000 }, (_, k) =>
        catalog.addGeneration({
          bucket: 'many',
          name: `p${(i + k) % 100}/obj-${i + k}`,
          meta: {},
          blob: 'shared',
          digest,
          pre: {},
        }),
      ),
    );
  }
  await catalog.close();
}

async function listing(gcs: Storage, dir: string, objects: number): Promise<BenchFigure> {
  const names = join(dir, 'names');
  mkdirSync(names);
  for (let i = 0; i < objects; i++) writeFileSync(join(names, `p${i % 100}-obj-${i}`), '');
  const rounds = 5;
  let expected = 0;
  let started = performance.now();
  for (let r = 0; r < rounds; r++)
    expected = (await readdir(names)).filter((n) => n.startsWith('p42-')).length;
  const baseline = (performance.now() - started) / rounds;
  rmSync(names, { recursive: true, force: true });
  let got = 0;
  started = performance.now();
  for (let r = 0; r < rounds; r++) {
    const [files] = await gcs.bucket('many').getFiles({ prefix: 'p42/' });
    got = files.length;
  }
  const ms = (performance.now() - started) / rounds;
  if (got !== expected) throw new Error(`listed ${got} objects, expected ${expected}`);
  return {
    name: `list a prefix of ${got} objects among ${objects.toLocaleString('en-US')} (getFiles, every page)`,
    value: ms,
    unit: 'ms',
    baseline: { name: `readdir of ${objects.toLocaleString('en-US')} names + filter`, value: baseline },
    detail: `${Math.ceil(got / 1000)} pages of at most 1000`,
  };
}

export const suite: BenchSuite = {
  name: 'storage emulator (Google client, --fsync always, own process)',
  async run({ quick }) {
    const objects = quick ? QUICK_LIST_OBJECTS : LIST_OBJECTS;
    const dir = mkdtempSync(join(tmpdir(), 'storage-bench-'));
    const dataDir = join(dir, 'data');
    try {
      await fillCatalog(dataDir, objects);
      const { child, url } = await launchEmulator('storage', dataDir, ['--fsync', 'always']);
      try {
        const gcs = new Storage({ apiEndpoint: url, projectId: 'bench' });
        await gcs.createBucket('bench');
        const figures: BenchFigure[] = [];
        for (const c of quick ? QUICK_CASES : CASES) figures.push(...(await transfer(gcs, dir, c)));
        figures.push(await listing(gcs, dir, objects));
        return figures;
      } finally {
        child.kill('SIGTERM');
        await exited(child);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
