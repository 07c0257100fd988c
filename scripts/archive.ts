/**
 * Deterministic archives with nothing but node:zlib: a zip (what Cloud Functions takes as
 * source) and a gzipped tar (what Cloud Run's source deploy without a build takes). Fixed
 * timestamps and sorted entries, so the same files always give the same bytes and hash.
 */
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

export interface ArchiveEntry {
  /** Path inside the archive, `/`-separated. */
  readonly name: string;
  readonly data: Buffer;
}

const sorted = (entries: readonly ArchiveEntry[]) =>
  [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** A zip of deflated files (no directories, no zip64: bundles are far below 4 GiB). */
export function zip(entries: readonly ArchiveEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  // 1980-01-01 00:00, the DOS epoch: timestamps must not change the hash.
  const dosTime = 0;
  const dosDate = (0 << 9) | (1 << 5) | 1;
  for (const entry of sorted(entries)) {
    const name = Buffer.from(entry.name, 'utf8');
    const compressed = deflateRawSync(entry.data, { level: 9 });
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, so the mode below is read
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((0o100644 << 16) >>> 0) as number, 38); // regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A gzipped ustar archive of regular files, each preceded by entries for its parent
 * directories: GNU tar creates missing parents anyway, but not every unpacker does, and an
 * archive that lists its directories is what `tar -c` itself writes.
 */
export function tarGz(entries: readonly ArchiveEntry[]): Buffer {
  const directories = new Set<string>();
  for (const { name } of entries) {
    const parts = name.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) directories.add(`${parts.slice(0, i).join('/')}/`);
  }
  const all = [...entries, ...[...directories].map((name) => ({ name, data: Buffer.alloc(0) }))];
  const blocks: Buffer[] = [];
  for (const entry of sorted(all)) {
    if (Buffer.byteLength(entry.name) > 100) throw new Error(`tar name too long: ${entry.name}`);
    const isDirectory = entry.name.endsWith('/');
    const header = Buffer.alloc(512);
    const field = (value: string, at: number, length: number) => header.write(value, at, length, 'utf8');
    const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0');
    field(entry.name, 0, 100);
    field(octal(isDirectory ? 0o755 : 0o644, 8), 100, 8);
    field(octal(0, 8), 108, 8); // uid
    field(octal(0, 8), 116, 8); // gid
    field(octal(entry.data.length, 12), 124, 12);
    field(octal(0, 12), 136, 12); // mtime: fixed, for a stable hash
    field('        ', 148, 8); // checksum is computed with spaces in its place
    field(isDirectory ? '5' : '0', 156, 1); // directory or regular file
    field('ustar\u000000', 257, 8);
    let sum = 0;
    for (const byte of header) sum += byte;
    field(`${octal(sum, 7)}\u0000 `, 148, 8);
    blocks.push(header, entry.data, Buffer.alloc((512 - (entry.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024)); // two zero blocks end the archive
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}
