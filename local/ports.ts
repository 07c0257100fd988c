/**
 * Loopback ports for local services: free ports drawn from slices of a probe range each process
 * holds alone, and the check that a port can be listened on.
 */
import { createServer } from 'node:net';
import { LOCAL_HOST } from './services.ts';

/** A loopback port free right now, outside the range the kernel gives outgoing connections. */
export async function freePort(): Promise<number> {
  // Below the kernel's ephemeral range (Linux 32768–60999, macOS 49152–65535): a port asked of
  // the kernel with listen(0) comes from that range, and between this probe and the service's own
  // listen an outgoing connection may take it as its local port (seen in CI: EADDRINUSE).
  // Each process draws from slices of the range it alone holds (claimNextSlice): two processes probing
  // the same free port at once would both hand it out, and one of their services would not start.
  for (let n = 0; ; n++) {
    const range = n < slices.length ? slices[n] : await claimNextSlice();
    if (!range) break;
    const size = range.to - range.from;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i++) {
      const port = range.from + ((start + i) % size);
      if (await tryPort(port)) return port;
    }
  }
  // Every slice held by a running process: share the whole range, as before.
  for (let tries = 0; tries < 50; tries++) {
    const port = PROBE_FROM + Math.floor(Math.random() * (PROBE_TO - PROBE_FROM));
    if (await tryPort(port)) return port;
  }
  throw new Error(`no free loopback port found in ${PROBE_FROM}–${PROBE_TO}`);
}

/**
 * The probe range and its slices: 220 slices of 100 ports from 10000, above every default port of
 * the local environment (local/services.ts, all below 10000) and below the kernel's ephemeral
 * range. It was 48 slices of 250 from 20000 until 2026-11-28, when CI saw three of four processes
 * draw from one slice, which only the shared fallback below should allow; a full `npm test` then
 * held at most 16 of these 220 at once (sampled), so running out of slices is not shown to be why.
 */
export const PORT_SLICES = { from: 10_000, to: 32_000, size: 100 } as const;
const PROBE_FROM = PORT_SLICES.from;
const PROBE_TO = PORT_SLICES.to;
const SLICE_SIZE = PORT_SLICES.size;
/** Ports this process already handed out: two services must not be given the same one. */
const handedOut = new Set<number>();
/** The slices this process holds, in the order it claimed them. */
const slices: { from: number; to: number }[] = [];

/**
 * One more slice of the probe range for this process. A slice is held by listening on its first
 * port for as long as the process lives (the socket is unref'd: it keeps nothing running), and
 * its other ports are this process's to hand out. The kernel makes the claim exclusive and ends
 * it with the process, however it dies. (A file per slice, taken over from a dead owner, let two
 * processes that took over the same stale file at once both hold it: seen in CI.) Undefined when
 * every slice is held.
 */
async function claimNextSlice(): Promise<{ from: number; to: number } | undefined> {
  const count = Math.floor((PROBE_TO - PROBE_FROM) / SLICE_SIZE);
  const first = process.pid % count;
  for (let i = 0; i < count; i++) {
    const n = (first + i) % count;
    const lock = PROBE_FROM + n * SLICE_SIZE;
    if (slices.some((r) => r.from === lock + 1) || !(await holdPort(lock))) continue;
    const range = { from: lock + 1, to: lock + SLICE_SIZE };
    slices.push(range);
    return range;
  }
  return undefined;
}

/** Listens on `port` for the rest of the process's life; false when it is taken. */
function holdPort(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, LOCAL_HOST, () => {
      server.unref();
      done(true);
    });
  });
}

/** Hands `port` out if no call of this process has and it can be listened on; held while probed. */
async function tryPort(port: number): Promise<boolean> {
  if (handedOut.has(port)) return false;
  handedOut.add(port); // calls running at once must not probe (and hand out) the same port
  if (await canListen(port)) return true;
  handedOut.delete(port);
  return false;
}

export function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.unref();
    server.once('error', () => done(false));
    server.listen(port, LOCAL_HOST, () => server.close(() => done(true)));
  });
}
