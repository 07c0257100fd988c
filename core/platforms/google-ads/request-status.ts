/**
 * Data Manager's diagnostics for one request (docs/platforms.md §6, "Answers"): every accepted
 * request answers `{requestId}` at once and is processed later, so what Google made of its rows
 * is read afterwards with `GET /v1/requestStatus:retrieve?requestId=…`, which answers a
 * `requestStatusPerDestination[]`: `requestStatus` (`PROCESSING`, `SUCCESS`, `PARTIAL_SUCCESS`,
 * `FAILED`, `REQUEST_STATUS_UNKNOWN`) and, once processed, `errorInfo.errorCounts[]` and
 * `warningInfo.warningCounts[]` (`{recordCount, reason}`). Pure: the URL to call, the answer in
 * words, and whether it reports a failure (which the scheduler's GoogleAdsDiagnostics job writes
 * to the ledger); the caller sends it with the same OAuth token as the upload.
 */
import { GOOGLE_ADS_BASE_URL } from './driver.ts';

/** The requestId of an accepted Data Manager request's answer, if it has one. */
export function requestIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { requestId?: unknown } | null)?.requestId;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The `requestStatus:retrieve` URL for a request id, at Google's origin or a stand-in's. */
export function requestStatusUrl(requestId: string, origin: string = GOOGLE_ADS_BASE_URL): string {
  return `${origin.replace(/\/+$/, '')}/v1/requestStatus:retrieve?requestId=${encodeURIComponent(requestId)}`;
}

/** One destination's status, as read. */
export interface DestinationStatus {
  /** The user list or conversion action (`productDestinationId`), when the answer names it. */
  readonly destination?: string;
  readonly status: string;
  /** Reasons with their record counts: errors first, then warnings. */
  readonly errors: readonly { readonly reason: string; readonly records: number }[];
  readonly warnings: readonly { readonly reason: string; readonly records: number }[];
}

type Counts = { errorCounts?: unknown; warningCounts?: unknown } | undefined;

function counts(list: unknown): { reason: string; records: number }[] {
  if (!Array.isArray(list)) return [];
  return list.map((c: { reason?: unknown; recordCount?: unknown }) => ({
    reason: typeof c?.reason === 'string' ? c.reason : 'UNSPECIFIED',
    // int64 comes as a string in JSON.
    records: Number(c?.recordCount ?? 0) || 0,
  }));
}

/** `requestStatus:retrieve`'s answer per destination; an answer of another shape reads as none. */
export function readRequestStatus(json: unknown): DestinationStatus[] {
  const list = (json as { requestStatusPerDestination?: unknown } | null)?.requestStatusPerDestination;
  if (!Array.isArray(list)) return [];
  return list.map((d: Record<string, unknown>) => {
    const destination = (d?.['destination'] as { productDestinationId?: unknown } | undefined)
      ?.productDestinationId;
    return {
      ...(typeof destination === 'string' ? { destination } : {}),
      status: typeof d?.['requestStatus'] === 'string' ? d['requestStatus'] : 'REQUEST_STATUS_UNKNOWN',
      errors: counts((d?.['errorInfo'] as Counts)?.errorCounts),
      warnings: counts((d?.['warningInfo'] as Counts)?.warningCounts),
    };
  });
}

/** One line per destination: `5550001 PARTIAL_SUCCESS: 2 INVALID_EMAIL_FORMAT; warnings: …`. */
export function describeRequestStatus(statuses: readonly DestinationStatus[]): string {
  if (statuses.length === 0) return 'no status for this request (unknown id, or not processed yet)';
  const words = (list: DestinationStatus['errors']) => list.map((c) => `${c.records} ${c.reason}`).join(', ');
  return statuses
    .map(
      (s) =>
        `${s.destination ? `${s.destination} ` : ''}${s.status}${s.errors.length > 0 ? `: ${words(s.errors)}` : ''}${s.warnings.length > 0 ? `; warnings: ${words(s.warnings)}` : ''}`,
    )
    .join('\n');
}

/** Statuses Google gives a request once processed (`PROCESSING` and `REQUEST_STATUS_UNKNOWN` are not). */
const FINAL = new Set(['SUCCESS', 'PARTIAL_SUCCESS', 'FAILED']);

/** Whether Google has finished with the request: every destination's status is final. */
export function isProcessed(statuses: readonly DestinationStatus[]): boolean {
  return statuses.length > 0 && statuses.every((s) => FINAL.has(s.status));
}

/**
 * What Google's diagnostics say went wrong with a request, or undefined when nothing did (or not
 * yet): a destination `FAILED`, or whose errors name records, is a failure. In words for the
 * ledger's reason, and as an excerpt of statuses, reasons and counts (no identifier is in it).
 */
export function requestFailure(
  statuses: readonly DestinationStatus[],
): { readonly reason: string; readonly excerpt: Record<string, unknown> } | undefined {
  const failed = statuses.filter((s) => s.status === 'FAILED' || s.errors.length > 0);
  if (failed.length === 0) return undefined;
  return {
    reason: describeRequestStatus(failed).replace(/\n/g, '; '),
    excerpt: { requestStatusPerDestination: statuses.map((s) => ({ ...s })) },
  };
}
