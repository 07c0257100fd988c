/**
 * Who may read and write traces at the local receiver when it runs with `--iam <file>`
 * (docs/observability.md, "Who may read a trace"): the same access file, tokens and member ports
 * as the emulators (emulators/common/iam-enforce.ts), checked as Cloud Trace checks them.
 *
 * - Writing spans (`POST /v1/traces`, the Telemetry API's OTLP endpoint) needs
 *   `telemetry.traces.write` on the project (roles/cloudtrace.agent holds it, beside v2's
 *   `cloudtrace.traces.patch`; iam/docs/roles-permissions/cloudtrace).
 * - Reading one (`GET /v1/projects/{p}/traces/{id}`, v1's traces.get) needs `cloudtrace.traces.get`,
 *   and the receiver's own list of spans (`GET /traces.json`) `cloudtrace.traces.list`
 *   (both in roles/cloudtrace.user).
 * - Metrics (metrics.ts) are gated alike, as Cloud Monitoring checks them: writing points
 *   (`POST /v1/metrics`) needs `monitoring.timeSeries.create` (roles/monitoring.metricWriter),
 *   reading them (`GET /metrics.json`) `monitoring.timeSeries.list` (roles/monitoring.viewer).
 *
 * The caller is the member of a verified bearer token, else the member bound to the port the
 * connection came in on (the workloads' exporters and the studio's reader send no credentials to
 * a local endpoint, as to any emulator). Unlike the emulators, a request with neither is no owner:
 * Cloud Trace answers a call without credentials 401, and so does this.
 */
import type { IncomingMessage } from 'node:http';
import {
  type Denial,
  denialInfo,
  denialSuffix,
  type Enforcement,
  type IdentityListeners,
  UNAUTHENTICATED_MESSAGE,
} from '../../emulators/common/iam-enforce.ts';

/** Google's sentence for a call that carries no credentials at all (HTTP 401). */
export const MISSING_CREDENTIALS_MESSAGE =
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.';

/** A refusal in Google's error JSON (`{error: {code, message, status, details?}}`). */
export interface TraceRefusal {
  readonly code: 401 | 403;
  readonly body: {
    readonly error: {
      readonly code: number;
      readonly message: string;
      readonly status: string;
      readonly details?: readonly unknown[];
    };
  };
}

/** Undefined when the request may go on; else the answer to give. */
export type TraceGate = (
  req: IncomingMessage,
  permission: string,
  resource: string,
) => TraceRefusal | undefined;

const refusal = (
  code: 401 | 403,
  status: string,
  message: string,
  details?: readonly unknown[],
): TraceRefusal => ({
  code,
  body: { error: { code, message, status, ...(details ? { details } : {}) } },
});

/**
 * The gate over an access file and the receiver's member ports (read when a request comes);
 * `service` is the API a 403's ErrorInfo names (Cloud Trace's, or Cloud Monitoring's for metrics).
 */
export function traceGate(
  enforcement: Enforcement,
  identities: () => IdentityListeners | undefined,
  service = 'cloudtrace.googleapis.com',
): TraceGate {
  return (req, permission, resource) => {
    const raw = req.headers.authorization;
    const bound = identities()?.memberOfSocket(req.socket);
    if (raw === undefined && bound === undefined)
      return refusal(401, 'UNAUTHENTICATED', MISSING_CREDENTIALS_MESSAGE);
    const caller = enforcement.callerOf(raw, bound);
    if (caller === undefined) return refusal(401, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    const denied: Denial | undefined = enforcement.check(caller, { permission, resource });
    if (denied === undefined) return undefined;
    return refusal(403, 'PERMISSION_DENIED', `The caller does not have permission. ${denialSuffix(denied)}`, [
      denialInfo(service, denied),
    ]);
  };
}
