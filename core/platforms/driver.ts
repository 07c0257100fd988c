/**
 * The contract between the forward function and each destination type (Meta CAPI, GA4 MP,
 * TikTok Events API, webhook), built from each platform's parts by platform.ts. A driver is
 * pure: it builds the HTTP request from stored events and interprets the platform's answer; the
 * forward function's adapter sends it (jitsu-style: the network is injected, so drivers and
 * preview share one code path).
 */
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import type { AnswerColumns } from './platform-answer.ts';

/** What a driver asks the sender to do. `redactedUrl` never contains a secret. */
export interface OutboundRequest {
  /**
   * Drivers POST everywhere but Meta's custom audiences, which remove users with DELETE; GET and
   * PATCH are for the adapters' own Google REST calls through the same sender (Firestore claims);
   * OPTIONS is a CloudEvents webhook's handshake (webhook/handshake.ts); HEAD an open breaker's
   * probe (core/delivery/probe.ts).
   */
  readonly method: 'POST' | 'DELETE' | 'GET' | 'PATCH' | 'OPTIONS' | 'HEAD';
  readonly url: string;
  readonly redactedUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The platform's answer, as the sender saw it (a timeout or connection error has no status). */
export type InboundResponse =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
    }
  | { readonly kind: 'network_error'; readonly message: string }
  /**
   * The egress gate (adapters/egress.ts, core/egress/policy.ts) did not send it: nothing left this
   * service. Permanent: the reason (`egress refused: <why>`) becomes a `rejected` row.
   */
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * A delivery's outcome. `retry` makes the push answer non-2xx so Pub/Sub redelivers with
 * backoff (a `failed` ledger row); `rejected` is permanent and acknowledged.
 */
export type Outcome =
  | { readonly status: 'delivered'; readonly httpStatus?: number; readonly detail?: string }
  | { readonly status: 'rejected'; readonly reason: string; readonly httpStatus?: number }
  | { readonly status: 'retry'; readonly reason: string; readonly httpStatus?: number };

/** Either a request to send, or the reason nothing may be sent (mapping or target check failed). */
export type Prepared =
  | {
      readonly ok: true;
      readonly request: OutboundRequest;
      /** Parts of the event left out so the rest could be sent (a bad item line), in words. */
      readonly dropped?: string;
    }
  | { readonly ok: false; readonly reason: string };

export interface DriverContext {
  readonly destination: Readonly<Destination>;
  /** Secret values by role (`access_token`, `api_secret`, `signing_key`…), read at run time. */
  readonly secrets: Readonly<Record<string, string>>;
  readonly now: Date;
  /** The environment's name (settings `name`): a CloudEvents webhook's `source`. */
  readonly environment?: string;
  /** Whether Global Privacy Control opts out (`producers.honor_gpc`); default true. */
  readonly honorGpc?: boolean;
}

export interface Driver {
  readonly type: Destination['type'];
  /**
   * Secret roles the driver needs; a missing one is a clear `failed` reason, not a crash. Always
   * the platform's `requirements.secrets` (platform.ts builds the driver from them).
   */
  readonly requiredSecrets: readonly string[];
  /**
   * For a platform that takes an OAuth access token (Google's Data Manager API): the secret role
   * holding the credentials it is obtained with, and the scope. The forward function exchanges
   * them (adapters/google-oauth.ts) and hands the token to the driver as `secrets.access_token`;
   * an answer of 401 gets a fresh token and one more call.
   */
  readonly oauth?: OAuthNeeds;
  /** Builds the request for one event (mapping, then the target's schema and limits). */
  prepare(event: StoredEvent, ctx: DriverContext): Prepared;
  /** Classifies the platform's answer into delivered / rejected / retry. */
  interpret(response: InboundResponse, ctx: DriverContext): Outcome;
  /**
   * What the ledger keeps of the platform's answer (platform-answer.ts: its id for the request,
   * its count, a bounded excerpt without credentials or identifiers); undefined when it said nothing.
   */
  answer?(response: InboundResponse, ctx: DriverContext): AnswerColumns | undefined;
  /**
   * Optional batching for platforms that take many events per request (Meta, TikTok: 1000).
   * Each event is mapped and checked alone, so one bad event is rejected without failing the
   * batch the platform would otherwise refuse whole; the rest go out in as few requests as allowed.
   */
  prepareBatch?(events: readonly StoredEvent[], ctx: DriverContext): PreparedBatch;
  /**
   * For a destination run by a runtime of its own (`segment_action`: Segment's actions, which
   * make their requests themselves): the whole delivery of one event in one call, which the
   * forward core calls instead of prepare, send and interpret. Resolves with the outcome for
   * anything the event, the settings or the platform did; rejects only for a fault of its own.
   */
  perform?(event: StoredEvent, ctx: DriverContext): Promise<Performed>;
}

/** What a driver's `perform` did: the delivery's outcome, and the bodies of the requests it sent. */
export interface Performed {
  readonly outcome: Outcome;
  /** The request bodies as sent, read for the identifier kinds they carried (match quality); never stored. */
  readonly sent?: readonly string[];
  /**
   * Whether the destination answered: false when a request got no answer (refused, timed out),
   * true when every one did, absent when none was made. The breaker and the limiter learn it.
   */
  readonly answered?: boolean;
  /** The `Retry-After` of the answer that asked for another attempt: the destination is held back until then. */
  readonly retryAfter?: string;
  /** What the ledger keeps of the platform's answer (platform-answer.ts), as `answer` gives it for a prepared request. */
  readonly answer?: AnswerColumns;
}

/** The requests of a batch, each naming the events it carries, and the events refused before sending. */
export interface PreparedBatch {
  readonly requests: readonly { readonly request: OutboundRequest; readonly eventIds: readonly string[] }[];
  readonly rejected: readonly { readonly eventId: string; readonly reason: string }[];
}

/** Where a driver's OAuth credentials are, and the scope its access token needs. */
export interface OAuthNeeds {
  readonly credentials: string;
  readonly scope: string;
}

export interface DestinationRequirements {
  /** `config` keys the driver reads (ids the platform addresses events by). */
  readonly config: readonly string[];
  /** `config` keys the driver reads when present; any key outside both lists is refused (a typo). */
  readonly optionalConfig: readonly string[];
  /** Secret roles the driver sends with every request (named under `secrets`). */
  readonly secrets: readonly string[];
  /** Whether `base_url` is the target itself (no platform default). */
  readonly baseUrl: boolean;
  /**
   * Whether test mode needs a `test_event_code`: the platform takes test events only under one,
   * so without it test mode would send live events (GA4's test mode is its debug endpoint).
   */
  readonly testEventCode: boolean;
  /**
   * For a platform with no test mode at all (LinkedIn, Microsoft UET): what to do instead. Test
   * mode is then refused — by the settings check and before sending — rather than sending live
   * events a person believes are tests.
   */
  readonly noTestMode?: string;
  /** The shape a config value must have (LinkedIn's `api_version` is `YYYYMM`), and it in words. */
  /**
   * Whether `config` holds the destination's own settings rather than keys of ours (a Segment
   * action's `authentication.fields`): the generic key check leaves them to the platform's check.
   */
  readonly openConfig?: boolean;
  readonly configFormats?: Readonly<
    Record<string, { readonly pattern: RegExp; readonly description: string }>
  >;
}
