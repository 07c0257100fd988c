/**
 * Replays started from the studio's console (docs/console.md#replays): the request a person
 * makes, checked here, kept as one object in the registry bucket (`replays/<id>.json`) and run by
 * the scheduler's `Replay` job chunk by chunk, with the same code as `eventbus replay`. Pure: the
 * checks, the names, and what a page shows of a replay from its object and its lock.
 */
import type { LockState } from './dispatch.ts';

export const REPLAY_KIND = 'Replay';

/** What a person asks for: a destination's dead letters, or a warehouse slice re-sent to it. */
export interface ReplayRequest {
  readonly destination: string;
  readonly source: 'dead-letters' | 'slice';
  /** Slices: RFC 3339 instants, half-open [from, to). */
  readonly from?: string;
  readonly to?: string;
  /** Slices: an extra BigQuery condition on events_dedup columns. */
  readonly where?: string;
  /** Dead letters: at most this many messages. */
  readonly limit?: number;
}

/** Figures of a replay so far (the CLI's report). */
export interface ReplayFigures {
  readonly read: number;
  readonly republished: number;
  readonly skipped: number;
  readonly failed: number;
  /** Slices: the rows in the slice, known once it is taken. */
  readonly total?: number;
  readonly error?: string;
  /** Slices: of those sent, events stored before the destination went live (a backfill). */
  readonly backfilled?: number;
  /** Slices: when the destination went live (core/delivery/backfill.ts). */
  readonly went_live?: string;
  /** Slices: events not sent, by reason (the platform's age limit named). */
  readonly reasons?: Readonly<Record<string, number>>;
  /** Stopped by a person before the end (`replay-cancel`). */
  readonly cancelled?: boolean;
}

/** The object in the bucket: the request, who made it, and its outcome once it has one. */
export interface ReplayRecord extends ReplayRequest {
  readonly id: string;
  readonly requested_by: string;
  readonly requested_at: string;
  readonly status: 'requested' | 'finished';
  readonly finished_at?: string;
  readonly figures?: ReplayFigures;
  /** A person asked to stop it (`replay-cancel`): the Replay job stops before its next chunk. */
  readonly cancel_requested_at?: string;
  readonly cancel_requested_by?: string;
}

export const REPLAYS_PREFIX = 'replays/';
export const replayPath = (id: string): string => `${REPLAYS_PREFIX}${id}.json`;

/** At most this many dead letters per replay request (run it again for more). */
export const MAX_REPLAY_LIMIT = 1_000_000;
/** A slice longer than this is refused: split it (each replay re-sends every row it holds). */
export const MAX_SLICE_DAYS = 31;
export const MAX_WHERE_CHARS = 2000;

/** An id that sorts by time and is safe in object names and BigQuery table names. */
export function replayId(now: Date, random: string): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${random
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 8)}`;
}

export const REPLAY_ID_PATTERN = /^\d{8}T\d{6}Z-[a-z0-9]{1,8}$/;

export interface Violation {
  readonly field: string;
  readonly description: string;
}

/**
 * Checks a request body against the environment's destinations; the request, or what is wrong
 * with each field (the admin API answers them as field violations).
 */
export function parseReplayRequest(
  body: Readonly<Record<string, unknown>>,
  destinations: readonly string[],
): { ok: true; request: ReplayRequest } | { ok: false; violations: Violation[] } {
  const violations: Violation[] = [];
  const bad = (field: string, description: string) => violations.push({ field, description });
  const destination = body['destination'];
  if (typeof destination !== 'string' || !destinations.includes(destination))
    bad(
      'destination',
      `must be one of the environment's destinations (${destinations.join(', ') || 'none configured'})`,
    );
  const source = body['source'];
  if (source !== 'dead-letters' && source !== 'slice') bad('source', 'must be "dead-letters" or "slice"');
  const known = new Set(['destination', 'source', 'from', 'to', 'where', 'limit']);
  for (const k of Object.keys(body)) if (!known.has(k)) bad(k, 'is not a field of a replay request');
  const instant = (field: 'from' | 'to'): number | undefined => {
    const v = body[field];
    const ms = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN;
    if (Number.isNaN(ms)) {
      bad(field, 'must be a time (RFC 3339, e.g. 2026-01-31T00:00:00Z, or YYYY-MM-DD)');
      return undefined;
    }
    return ms;
  };
  let request: ReplayRequest | undefined;
  if (source === 'slice') {
    if (body['limit'] !== undefined) bad('limit', 'goes with dead letters; a slice is bounded by its times');
    const from = instant('from');
    const to = instant('to');
    if (from !== undefined && to !== undefined) {
      if (!(from < to)) bad('to', 'must be after from');
      else if (to - from > MAX_SLICE_DAYS * 86_400_000)
        bad('to', `a slice spans at most ${MAX_SLICE_DAYS} days: split longer ones`);
    }
    const where = body['where'];
    if (where !== undefined && (typeof where !== 'string' || where.length > MAX_WHERE_CHARS))
      bad('where', `must be a BigQuery condition of at most ${MAX_WHERE_CHARS} characters`);
    else if (typeof where === 'string') {
      const why = whereProblem(where);
      if (why) bad('where', why);
    }
    if (from !== undefined && to !== undefined)
      request = {
        destination: String(destination),
        source,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        ...(typeof where === 'string' && where.trim() !== '' ? { where: where.trim() } : {}),
      };
  } else if (source === 'dead-letters') {
    for (const f of ['from', 'to', 'where'] as const)
      if (body[f] !== undefined) bad(f, 'goes with a slice; dead letters are replayed as they are');
    const limit = body['limit'];
    if (
      limit !== undefined &&
      (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_REPLAY_LIMIT)
    )
      bad('limit', `must be a whole number from 1 to ${MAX_REPLAY_LIMIT}`);
    request = {
      destination: String(destination),
      source,
      ...(typeof limit === 'number' ? { limit } : {}),
    };
  }
  if (violations.length > 0 || !request) return { ok: false, violations };
  return { ok: true, request };
}

/**
 * Why a slice's `where` is not one boolean expression, or undefined. It is SQL a person wrote,
 * put inside ours as ` AND (<where>)` (core/delivery/replay.ts): BigQuery's dry run would accept
 * `FALSE) OR (TRUE`, which reads past the window and the 31-day cap, so the text is read here
 * token by token as BigQuery's lexer reads it (quoted strings and identifiers with their escapes,
 * comments, semicolons) and must keep its parentheses balanced: then the parentheses around it
 * hold all of it. Comments and semicolons are refused outright: a condition needs neither.
 */
export function whereProblem(where: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < where.length; i++) {
    const ch = where[i] as string;
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = closingQuote(where, i);
      if (end < 0) return `has an unterminated ${ch === '`' ? 'quoted name' : 'string'}`;
      i = end;
    } else if (ch === '(') depth++;
    else if (ch === ')') {
      if (--depth < 0) return 'closes a parenthesis it did not open: give one condition';
    } else if (ch === ';') return 'must be one condition, without ";"';
    else if (ch === '#' || (ch === '-' && where[i + 1] === '-') || (ch === '/' && where[i + 1] === '*'))
      return 'must not hold comments';
  }
  return depth === 0 ? undefined : 'leaves a parenthesis open: give one condition';
}

/** The index of the quote that closes the one at `start` (triple quotes too), or -1. */
function closingQuote(text: string, start: number): number {
  const q = text[start] as string;
  const triple = q !== '`' && text.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  for (let i = start + close.length; i < text.length; i++) {
    // A backslash takes the next character with it, in raw strings too (BigQuery's lexer).
    if (text[i] === '\\') i++;
    else if (text.startsWith(close, i)) return i + close.length - 1;
    else if (!triple && (text[i] === '\n' || text[i] === '\r') && q !== '`') return -1;
  }
  return -1;
}

/** Where a replay stands, as the console shows it. */
export type ReplayState =
  | { readonly state: 'queued' }
  | { readonly state: 'running'; readonly chunk: number; readonly figures?: ReplayFigures }
  | { readonly state: 'finished'; readonly figures: ReplayFigures }
  | { readonly state: 'cancelled'; readonly figures: ReplayFigures }
  | { readonly state: 'given up'; readonly error: string; readonly figures?: ReplayFigures };

/** A replay's state from its object and its lock (the lock holds the figures while it runs). */
export function replayState(record: ReplayRecord, lock: LockState, runKey: string): ReplayState {
  if (record.status === 'finished')
    return {
      state: record.figures?.cancelled ? 'cancelled' : 'finished',
      figures: record.figures ?? { read: 0, republished: 0, skipped: 0, failed: 0 },
    };
  const figures = figuresOf(lock.cursor);
  if (lock.run === runKey) return { state: 'running', chunk: lock.chunk, ...(figures ? { figures } : {}) };
  if (lock.last_run === runKey && lock.last_error) return { state: 'given up', error: lock.last_error };
  return { state: 'queued' };
}

function figuresOf(cursor: unknown): ReplayFigures | undefined {
  if (typeof cursor !== 'object' || cursor === null) return undefined;
  const c = cursor as Record<string, unknown>;
  if (typeof c['read'] !== 'number') return undefined;
  return {
    read: c['read'],
    republished: Number(c['republished'] ?? 0),
    skipped: Number(c['skipped'] ?? 0),
    failed: Number(c['failed'] ?? 0),
    ...(typeof c['total'] === 'number' ? { total: c['total'] } : {}),
    ...(typeof c['backfilled'] === 'number' ? { backfilled: c['backfilled'] } : {}),
    ...(typeof c['went_live'] === 'string' ? { went_live: c['went_live'] } : {}),
    ...(typeof c['reasons'] === 'object' && c['reasons'] !== null
      ? { reasons: c['reasons'] as Record<string, number> }
      : {}),
  };
}
