/**
 * The local OTLP/HTTP metrics receiver (docs/observability.md, "Metrics"): `forward` and
 * `forward-catalog` export their delivery metrics here under `npm start`, as they export to the
 * Telemetry API's `/v1/metrics` (Cloud Monitoring) in the cloud. `POST /v1/metrics` takes an
 * ExportMetricsServiceRequest in OTLP's JSON encoding (what the SDK's `-http` exporter sends);
 * `GET /metrics.json?name=<metric>` answers the points kept, flattened, oldest first (without
 * `name`, the newest 500). Points are kept in memory, the newest MAX_POINTS. With a gate
 * (trace-access.ts: the receiver under `--iam`) each asks it first, as Cloud Monitoring checks
 * `monitoring.timeSeries.create` and `monitoring.timeSeries.list`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  allowed,
  answer,
  attributesOf,
  field,
  list,
  type OtlpStoreOptions,
  takeExport,
} from './otlp-json.ts';

/** One exported point as the receiver keeps it: a sum's value, or a histogram's counts. */
export interface ReceivedPoint {
  readonly name: string;
  readonly unit: string;
  readonly kind: 'sum' | 'gauge' | 'histogram';
  /** `service.name` and `service.instance.id` of the exporting process. */
  readonly service: string;
  readonly instance: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** Epoch nanoseconds, in decimal. */
  readonly startTimeUnixNano: string;
  readonly timeUnixNano: string;
  /** A sum's or gauge's value. */
  readonly value?: number;
  /** A histogram's count, sum, bucket counts and bounds (explicit buckets). */
  readonly count?: number;
  readonly sum?: number;
  readonly bucketCounts?: readonly number[];
  readonly explicitBounds?: readonly number[];
}

/** The newest points kept; older ones are dropped (a development receiver, not a store). */
const MAX_POINTS = 20_000;
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface MetricStore {
  /** Handles `POST /v1/metrics` and `GET /metrics.json`; false for any other request. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  points(name?: string): ReceivedPoint[];
  clear(): void;
}

export function createMetricStore(options: OtlpStoreOptions = {}): MetricStore {
  const gate = options.gate;
  const project = options.project ?? '';
  const kept: ReceivedPoint[] = [];
  const take = (body: unknown): void => {
    for (const rm of list(field(body, 'resourceMetrics'))) {
      const resource = attributesOf(field(field(rm, 'resource'), 'attributes'));
      const origin = {
        service: String(resource['service.name'] ?? ''),
        instance: String(resource['service.instance.id'] ?? ''),
      };
      for (const sm of list(field(rm, 'scopeMetrics')))
        for (const m of list(field(sm, 'metrics'))) kept.push(...pointsOf(m, origin));
    }
    if (kept.length > MAX_POINTS) kept.splice(0, kept.length - MAX_POINTS);
  };
  const pointsNamed = (name: string | undefined) =>
    name === undefined ? kept.slice(-500) : kept.filter((p) => p.name === name);
  return {
    handle(req, res, path) {
      if (req.method === 'POST' && path === '/v1/metrics') {
        takeExport(
          req,
          res,
          { gate, permission: 'monitoring.timeSeries.create', project },
          MAX_BODY_BYTES,
          take,
        );
        return true;
      }
      if (req.method === 'GET' && path === '/metrics.json') {
        if (!allowed(gate, req, res, 'monitoring.timeSeries.list', project)) return true;
        const name = new URL(req.url ?? '/', 'http://receiver').searchParams.get('name') ?? undefined;
        answer(res, 200, { points: pointsNamed(name) });
        return true;
      }
      return false;
    },
    points: pointsNamed,
    clear: () => {
      kept.length = 0;
    },
  };
}

/** The points of one OTLP/JSON metric (sum, gauge or explicit-bucket histogram); others are skipped. */
function pointsOf(m: unknown, origin: { service: string; instance: string }): ReceivedPoint[] {
  const name = field(m, 'name');
  if (typeof name !== 'string') return [];
  const unit = String(field(m, 'unit') ?? '');
  const kinds = [
    ['sum', field(m, 'sum')],
    ['gauge', field(m, 'gauge')],
    ['histogram', field(m, 'histogram')],
  ] as const;
  const found = kinds.find(([, data]) => data !== undefined);
  if (!found) return [];
  const [kind, data] = found;
  return list(field(data, 'dataPoints')).map((p) => {
    const base = {
      name,
      unit,
      kind,
      ...origin,
      attributes: attributesOf(field(p, 'attributes')),
      startTimeUnixNano: String(field(p, 'startTimeUnixNano') ?? '0'),
      timeUnixNano: String(field(p, 'timeUnixNano') ?? '0'),
    };
    if (kind !== 'histogram')
      return { ...base, value: Number(field(p, 'asInt') ?? field(p, 'asDouble') ?? 0) };
    return {
      ...base,
      count: Number(field(p, 'count') ?? 0),
      sum: Number(field(p, 'sum') ?? 0),
      bucketCounts: list(field(p, 'bucketCounts')).map(Number),
      explicitBounds: list(field(p, 'explicitBounds')).map(Number),
    };
  });
}
