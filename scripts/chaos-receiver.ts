/**
 * The chaos run's destinations (scripts/chaos.ts): one loopback server standing in for a webhook,
 * Meta and TikTok. It counts the event ids each receives and, frozen, holds every request
 * unanswered until it thaws, as a stopped process does, then answers what queued up.
 *
 * It also keeps when each copy arrived, whether the freeze held it and whether its sender had
 * already given up when it was answered, and the run's marks (the freeze, each kill), so that an
 * unconfirmed send (a duplicate no ledger row explains) can be told by when its first copy went
 * out: into the freeze as it began (a call in flight when the destination stopped answering, the
 * at-least-once floor), into the freeze later (a call sent to a destination already silent: what
 * forward's limiter and breaker are there to hold back), or answered in time with its sender
 * stopped before it recorded the answer (a kill).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DESTINATIONS = ['hook', 'meta', 'tiktok'] as const;

/** One copy of an event received: ms since the receiver started. */
export interface Arrival {
  readonly at: number;
  /** The freeze held it. */
  readonly held: boolean;
  /** When answered, its sender had hung up already (its call timed out): it never learned. */
  abandoned: boolean;
}

/** A moment of the run: the freeze's start and end, each kill. */
export interface Mark {
  readonly at: number;
  readonly what: string;
}

/** How long after the freeze begins a call counts as in flight when it began. */
export const IN_FLIGHT_MS = 1000;
/** How long before a kill an answered call counts as its sender's last. */
export const BEFORE_KILL_MS = 5000;

export type SendTime =
  | 'into the freeze as it began'
  | 'into the freeze later'
  | 'answered, then its sender killed'
  | 'answered, otherwise';

export const SEND_TIMES: readonly SendTime[] = [
  'into the freeze as it began',
  'into the freeze later',
  'answered, then its sender killed',
  'answered, otherwise',
];

/**
 * When an unconfirmed send's first copy went out, from the run's marks. `kills` names the
 * processes whose stop leaves an answered call unrecorded (forward, the supervisor with it).
 */
export function sendTime(first: Arrival, marks: readonly Mark[], kills: readonly string[]): SendTime {
  if (first.held) {
    const began = [...marks].reverse().find((m) => m.what === 'freeze' && m.at <= first.at);
    return began && first.at - began.at <= IN_FLIGHT_MS
      ? 'into the freeze as it began'
      : 'into the freeze later';
  }
  const killed = marks.some(
    (m) =>
      kills.includes(m.what.replace(/^kill /, '')) && m.at >= first.at && m.at - first.at <= BEFORE_KILL_MS,
  );
  return killed ? 'answered, then its sender killed' : 'answered, otherwise';
}

/** The calls a frozen destination received, by seconds since the freeze began (for the report). */
export function frozenArrivalSeconds(
  arrivals: Iterable<readonly Arrival[]>,
  marks: readonly Mark[],
): number[] {
  const began = marks.find((m) => m.what === 'freeze')?.at;
  if (began === undefined) return [];
  const out: number[] = [];
  for (const list of arrivals) for (const a of list) if (a.held) out.push(Math.floor((a.at - began) / 1000));
  return out.sort((a, b) => a - b);
}

export async function startCountingReceiver() {
  const t0 = Date.now();
  const received = new Map<string, Map<string, number>>(DESTINATIONS.map((d) => [d, new Map()]));
  const arrivals = new Map<string, Map<string, Arrival[]>>(DESTINATIONS.map((d) => [d, new Map()]));
  const marks: Mark[] = [];
  let frozen = false;
  const held: (() => void)[] = [];
  const idsOf = (dest: string, body: unknown): string[] => {
    const b = body as { event_id?: string; data?: { event_id?: string }[] };
    if (dest === 'hook') return typeof b.event_id === 'string' ? [b.event_id] : [];
    return (b.data ?? []).map((d) => d.event_id).filter((x): x is string => typeof x === 'string');
  };
  const destOf = (req: IncomingMessage) => DESTINATIONS.find((d) => req.url?.startsWith(`/${d}`)) ?? 'hook';
  const answer = (req: IncomingMessage, res: ServerResponse, raw: string, arrived: Arrival[]) => {
    const dest = destOf(req);
    const counts = received.get(dest) as Map<string, number>;
    let body: unknown = {};
    try {
      body = JSON.parse(raw);
    } catch {}
    for (const id of idsOf(dest, body)) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const a of arrived) a.abandoned = res.destroyed || req.socket.destroyed;
    const reply =
      dest === 'meta'
        ? { events_received: 1, fbtrace_id: 'chaos' }
        : dest === 'tiktok'
          ? { code: 0, message: 'OK' }
          : { ok: true };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const dest = destOf(req);
      let ids: string[] = [];
      try {
        ids = idsOf(dest, JSON.parse(raw));
      } catch {}
      const byId = arrivals.get(dest) as Map<string, Arrival[]>;
      const arrived = ids.map((id) => {
        const a: Arrival = { at: Date.now() - t0, held: frozen, abandoned: false };
        byId.set(id, [...(byId.get(id) ?? []), a]);
        return a;
      });
      // A frozen process answers nothing until it runs again; then it handles what queued up.
      if (frozen) held.push(() => answer(req, res, raw, arrived));
      else answer(req, res, raw, arrived);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    arrivals,
    marks,
    mark: (what: string) => {
      marks.push({ at: Date.now() - t0, what });
    },
    freeze: () => {
      frozen = true;
      marks.push({ at: Date.now() - t0, what: 'freeze' });
    },
    thaw: () => {
      frozen = false;
      marks.push({ at: Date.now() - t0, what: 'thaw' });
      for (const h of held.splice(0)) h();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type CountingReceiver = Awaited<ReturnType<typeof startCountingReceiver>>;
