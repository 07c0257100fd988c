/**
 * The delivery ledger (`deliveries` table, docs/architecture.md §4): one row per decision or attempt,
 * and one per later diagnosis a platform gave of an attempt (Google Ads' request status).
 * Rows carry a deterministic insertId so a retried ledger write does not duplicate a row.
 */
import { type AnswerColumns, scrubbed } from '../platforms/platform-answer.ts';

/**
 * `folded`: a copy of a delivery already made (a producer's retry, a redelivery, a replay) that the
 * send-once claim acknowledged without sending (core/claims/send-once.ts).
 */
export type LedgerStatus = 'skipped' | 'delivered' | 'folded' | 'rejected' | 'failed' | 'dead_lettered';

/** One row of the `deliveries` table, in the column names of the table. */
export interface LedgerRow {
  readonly event_id: string;
  readonly event_name: string;
  readonly destination: string;
  readonly status: LedgerStatus;
  readonly reason: string | null;
  /** Pub/Sub delivery attempt (1-based); null for `skipped`, which is decided before any attempt. */
  readonly attempt: number | null;
  readonly http_status: number | null;
  readonly replay: boolean;
  /** RFC 3339, UTC. */
  readonly recorded_at: string;
  /** The event row's payload digest (core/identity.ts): with event_id, which stored event this is about. */
  readonly payload_digest: string | null;
  /**
   * The identifier kinds the attempt's request carried, by name (core/delivery/identifiers.ts);
   * only on rows of an attempt whose request was built. Match quality reads it.
   */
  readonly identifiers?: readonly string[];
  /**
   * What the platform said (core/platforms/platform-answer.ts): its id for the request, the count
   * it took, a bounded excerpt without credentials or identifiers. Only on rows of an answer.
   */
  readonly platform_ref?: string | null;
  readonly platform_events_received?: number | null;
  readonly platform_response?: string | null;
  /** The trace the decision or attempt was made under (docs/observability.md); filled by the ledger writer. */
  readonly trace_id?: string | null;
  /**
   * True on rows of a backfill: a slice replay's event stored before the destination went live
   * (core/delivery/backfill.ts). Absent (NULL) on every other row.
   */
  readonly backfill?: boolean;
}

/** A row with the insertId BigQuery uses for best-effort de-duplication of retried writes. */
export interface LedgerEntry {
  readonly insertId: string;
  readonly row: LedgerRow;
}

/** Longest reason kept: platform messages can be large, the ledger is for people. */
export const MAX_REASON_CHARS = 1024;

/** A `skipped` row for a destination the decision layer refused. */
export function skippedEntry(
  event: { readonly event_id: string; readonly event_name: string; readonly payload_digest?: string },
  destination: string,
  reason: string,
  now: Date,
  replay = false,
  backfill = false,
): LedgerEntry {
  const digest = event.payload_digest ?? null;
  return {
    // One skip per event (its identity: id and digest), destination and run: a redelivered store
    // push writes the same id, another event that reused the event_id its own.
    insertId: `${event.event_id}/${digest ?? ''}/${destination}/skipped${replay ? '/replay' : ''}`,
    row: {
      event_id: event.event_id,
      event_name: event.event_name,
      destination,
      status: 'skipped',
      reason: clip(reason),
      attempt: null,
      http_status: null,
      replay,
      recorded_at: now.toISOString(),
      payload_digest: digest,
      ...(backfill ? { backfill: true } : {}),
    },
  };
}

/** A row for one forward attempt; `messageId` tells a replay's attempts from the original's. */
export function attemptEntry(input: {
  readonly event_id: string;
  readonly event_name: string;
  readonly payload_digest?: string | undefined;
  readonly destination: string;
  readonly status: Exclude<LedgerStatus, 'skipped'>;
  readonly reason?: string | undefined;
  readonly attempt: number;
  readonly httpStatus?: number | undefined;
  readonly replay: boolean;
  /** A backfill's message (its `backfill` attribute): the row says backfill = true. */
  readonly backfill?: boolean | undefined;
  readonly messageId: string;
  readonly now: Date;
  readonly identifiers?: readonly string[] | undefined;
  readonly answer?: AnswerColumns | undefined;
}): LedgerEntry {
  return {
    insertId: `${input.event_id}/${input.destination}/${input.messageId}/${input.attempt}/${input.status}`,
    row: {
      event_id: input.event_id,
      event_name: input.event_name,
      destination: input.destination,
      status: input.status,
      // A platform's words (its error message, the start of its answer) may echo what it was sent:
      // identifiers and tokens are kept as their kinds, never in the reason column.
      reason: input.reason === undefined ? null : clip(scrubbed(input.reason)),
      attempt: input.attempt,
      http_status: input.httpStatus ?? null,
      replay: input.replay,
      recorded_at: input.now.toISOString(),
      payload_digest: input.payload_digest ?? null,
      ...(input.identifiers ? { identifiers: input.identifiers } : {}),
      ...(input.answer ?? {}),
      ...(input.backfill ? { backfill: true } : {}),
    },
  };
}

/** The attempt a diagnosis is about, as its delivered row says it. */
export type DiagnosisAttempt = Pick<
  LedgerRow,
  'event_id' | 'event_name' | 'destination' | 'attempt' | 'replay'
> & {
  readonly payload_digest: string | null;
  readonly platform_ref: string;
};

/** Reason prefix of a row written from a platform's later diagnosis of an accepted request. */
export const DIAGNOSIS_REASON = 'platform diagnostics';

/**
 * A `rejected` row for an attempt the platform accepted and later reported as failed (Google Ads'
 * request status): the same event, destination, attempt and `platform_ref` as the delivered row
 * it is about, so the two join; one per request and diagnosis (a retried write is the same row).
 */
export function diagnosisEntry(input: {
  readonly attempt: DiagnosisAttempt;
  /** In words: the platform's status and its reasons with their record counts. */
  readonly reason: string;
  /** The diagnosis as the ledger keeps it: bounded, codes and counts only. */
  readonly response: string | null;
  readonly now: Date;
}): LedgerEntry {
  const a = input.attempt;
  return {
    insertId: `${a.event_id}/${a.destination}/${a.platform_ref}/diagnosis`,
    row: {
      event_id: a.event_id,
      event_name: a.event_name,
      destination: a.destination,
      status: 'rejected',
      reason: clip(`${DIAGNOSIS_REASON}: ${input.reason}`),
      attempt: a.attempt,
      http_status: null,
      replay: a.replay,
      recorded_at: input.now.toISOString(),
      payload_digest: a.payload_digest,
      platform_ref: a.platform_ref,
      platform_events_received: null,
      platform_response: input.response,
    },
  };
}

function clip(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}
