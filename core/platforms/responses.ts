/**
 * What a platform's answer means. Each platform writes a table (meta/, ga4/, tiktok/,
 * webhook/responses.ts) and one classifier reads it, in a fixed order: a network error, the
 * platform's own code in the body, the statuses worth another attempt, then a 2xx answer
 * (docs/platforms.md §5). A `retry` makes Pub/Sub deliver the message again; `rejected`
 * is permanent.
 */
import type { DriverContext, InboundResponse, Outcome } from './driver.ts';
import { type AnswerColumns, answerColumns, type PlatformAnswer } from './platform-answer.ts';

/** What an answer means before its HTTP status is attached. */
export type Verdict =
  | { readonly status: 'delivered'; readonly detail?: string }
  | { readonly status: 'rejected' | 'retry'; readonly reason: string };

/** An answer the sender received, with its body parsed when it was JSON. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly json: unknown;
}

/** One platform's reading of its answers. */
export interface ResponseTable {
  /** The reason given for a network error (a timeout, a refused connection); always retried. */
  readonly network: (message: string) => string;
  /** The platform's own code in a JSON body, which decides before the HTTP status does. */
  readonly code?: {
    /** Read on every answer (Meta's `error`), or on 2xx answers only (TikTok answers errors with 200). */
    readonly on: 'any' | 'ok';
    /** The code and the reason it gives, or undefined when the body carries none. */
    readonly read: (json: unknown) => { readonly code: number; readonly reason: string } | undefined;
    /** The code that means success (TikTok's 0); without one, a code is always a failure. */
    readonly delivered?: number;
    /** Codes worth another attempt; any other is refused, unless the answer was a 5xx. */
    readonly retry: (code: number) => boolean;
  };
  /** Statuses worth another attempt whatever the body says (throttling, the server's own failures). */
  readonly retryStatus: (status: number) => boolean;
  /** The reason given for a status retried (`retryStatus`) that no code explained. */
  readonly retried: (status: number, body: string) => string;
  /** The reason given for any other non-2xx status that no code explained. */
  readonly refused: (status: number, body: string) => string;
  /** What a 2xx answer that no code decided means; delivered when absent. */
  readonly ok?: (answer: Answer, ctx: DriverContext) => Verdict;
  /**
   * What the ledger keeps of any answer (platform-answer.ts): the platform's id for the request,
   * its count, and an allow-list of its fields. Absent: nothing (a webhook's body is anyone's).
   */
  readonly answer?: (answer: Answer) => PlatformAnswer | undefined;
}

/** Classifies an answer by a platform's table into delivered / rejected / retry. */
export function classify(table: ResponseTable, response: InboundResponse, ctx: DriverContext): Outcome {
  if (response.kind === 'network_error') return { status: 'retry', reason: table.network(response.message) };
  if (response.kind === 'refused') return { status: 'rejected', reason: response.reason };
  const httpStatus = response.status;
  const ok = httpStatus >= 200 && httpStatus < 300;
  // Parsed only for tables that read the body: a webhook receiver's answer may be anything.
  const json = table.code !== undefined || table.ok !== undefined ? parseJson(response.body) : undefined;
  const code = table.code && (table.code.on === 'any' || ok) ? table.code.read(json) : undefined;
  if (table.code && code) {
    if (code.code === table.code.delivered) return { status: 'delivered', httpStatus };
    const retry = table.code.retry(code.code) || httpStatus >= 500;
    return { status: retry ? 'retry' : 'rejected', reason: code.reason, httpStatus };
  }
  if (table.retryStatus(httpStatus))
    return { status: 'retry', reason: table.retried(httpStatus, response.body), httpStatus };
  if (!ok) return { status: 'rejected', reason: table.refused(httpStatus, response.body), httpStatus };
  const verdict = table.ok?.({ status: httpStatus, body: response.body, json }, ctx) ?? {
    status: 'delivered',
  };
  return { ...verdict, httpStatus };
}

/**
 * What the ledger keeps of an answer by a platform's table (platform-answer.ts), with the
 * request's secrets kept out; undefined for a network error or an answer that said nothing.
 */
export function readAnswer(
  table: ResponseTable,
  response: InboundResponse,
  ctx: DriverContext,
): AnswerColumns | undefined {
  if (!table.answer || response.kind !== 'response') return undefined;
  const said = table.answer({ status: response.status, body: response.body, json: parseJson(response.body) });
  return said ? answerColumns(said, Object.values(ctx.secrets)) : undefined;
}

/** Throttling (429) and the server's own failures (5xx): what the ad platforms ask to be sent again. */
export const throttledOrServerError = (status: number): boolean => status === 429 || status >= 500;

/** Parses a JSON body, or undefined when it is not JSON. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The start of a body, for reasons (bounded so a large HTML error page does not fill the ledger). */
export function snippet(body: string): string {
  const oneLine = body.replace(/\s+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}

/** `HTTP <status>: <the start of the body>`, the ad platforms' reason for a status without a code. */
export const httpReason = (status: number, body: string): string => `HTTP ${status}: ${snippet(body)}`;

/** `network error: <message>`, the ad platforms' reason for an answer that never came. */
export const networkReason = (message: string): string => `network error: ${message}`;
