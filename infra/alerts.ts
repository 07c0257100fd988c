/**
 * Alert policies: any message waiting in a dead-letter backlog, and a function answering
 * with server errors (each failed push is a 5xx, so a steady rate means stuck deliveries).
 * One log-based metric counts the gateway's 401/403 lines, by status and reason, so an
 * attack on credentials shows as a curve.
 * No notification channel is declared: the settings name none yet, so alerts show in
 * Cloud Monitoring and channels are attached there.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import { type Plan, POISON_ATTEMPTS, POISON_TOPIC } from '../core/plan.ts';
import { GATEWAY_SERVICE } from './gateway.ts';

/** The log-based metric counting the gateway's refused requests (its `refusal` log lines). */
export const AUTH_REFUSALS_METRIC = 'eventbus/auth_refusals';

/** The log-based metric counting the scheduler's daily API-sunset warnings (functions/schedule/api-sunset.ts). */
export const API_SUNSET_METRIC = 'eventbus/api_sunset';

/** 5xx answers per function over five minutes before the error alert opens. */
export const FUNCTION_ERRORS_THRESHOLD = 10;

export class Alerts extends pulumi.ComponentResource {
  readonly policies: readonly gcp.monitoring.AlertPolicy[];

  constructor(name: string, args: { readonly plan: Plan }, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Alerts', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const policies: gcp.monitoring.AlertPolicy[] = [];
    for (const s of plan.subscriptions.filter((sub) => sub.kind === 'backlog')) {
      policies.push(
        new gcp.monitoring.AlertPolicy(
          `${name}-dead-letters-${s.name}`,
          {
            project: plan.project,
            displayName: `eventbus ${plan.environment}: dead letters in ${s.name}`,
            combiner: 'OR',
            conditions: [
              {
                displayName: `${s.name} holds undelivered messages`,
                conditionThreshold: {
                  filter: [
                    'metric.type = "pubsub.googleapis.com/subscription/num_undelivered_messages"',
                    'resource.type = "pubsub_subscription"',
                    `resource.label.subscription_id = "${s.name}"`,
                  ].join(' AND '),
                  comparison: 'COMPARISON_GT',
                  thresholdValue: 0,
                  duration: '300s',
                  aggregations: [{ alignmentPeriod: '300s', perSeriesAligner: 'ALIGN_MAX' }],
                },
              },
            ],
            documentation: {
              mimeType: 'text/markdown',
              content:
                s.topic === POISON_TOPIC
                  ? `Poison messages: dead letters their \`-ledger\` subscription could not record after ${POISON_ATTEMPTS} attempts. Each is kept in \`invalid_events\` (reason = 'poison') with the subscription it came from; fix the cause, then purge or replay the \`${s.name}\` backlog (docs/delivery.md).`
                  : `Messages reached the dead-letter topic of \`${s.topic.replace(/-dead-letter$/, '')}\`. Inspect and replay them with \`eventbus replay\` (README).`,
            },
          },
          child,
        ),
      );
    }
    for (const f of plan.functions) {
      policies.push(
        new gcp.monitoring.AlertPolicy(
          `${name}-errors-${f.name}`,
          {
            project: plan.project,
            displayName: `eventbus ${plan.environment}: ${f.name} function errors`,
            combiner: 'OR',
            conditions: [
              {
                displayName: `${f.name} answers 5xx`,
                conditionThreshold: {
                  // Gen2 functions are Cloud Run services: their requests are Cloud Run's metrics.
                  filter: [
                    'metric.type = "run.googleapis.com/request_count"',
                    'resource.type = "cloud_run_revision"',
                    `resource.label.service_name = "${f.service}"`,
                    'metric.label.response_code_class = "5xx"',
                  ].join(' AND '),
                  comparison: 'COMPARISON_GT',
                  thresholdValue: FUNCTION_ERRORS_THRESHOLD,
                  duration: '0s',
                  aggregations: [
                    {
                      alignmentPeriod: '300s',
                      perSeriesAligner: 'ALIGN_DELTA',
                      crossSeriesReducer: 'REDUCE_SUM',
                    },
                  ],
                },
              },
            ],
            documentation: {
              mimeType: 'text/markdown',
              content: `The ${f.name} function failed more than ${FUNCTION_ERRORS_THRESHOLD} requests in five minutes: Pub/Sub is retrying them. Check its logs.`,
            },
          },
          child,
        ),
      );
    }
    new gcp.logging.Metric(
      `${name}-auth-refusals`,
      {
        project: plan.project,
        name: AUTH_REFUSALS_METRIC,
        description: 'Gateway requests refused with 401 or 403, by status and reason',
        filter: [
          'resource.type = "cloud_run_revision"',
          `resource.labels.service_name = "${GATEWAY_SERVICE}"`,
          'jsonPayload.refusal.status >= 401',
        ].join(' AND '),
        metricDescriptor: {
          metricKind: 'DELTA',
          valueType: 'INT64',
          labels: [
            { key: 'status', valueType: 'STRING', description: '401 or 403' },
            { key: 'reason', valueType: 'STRING', description: 'our error code, e.g. INVALID_CREDENTIALS' },
          ],
        },
        labelExtractors: {
          status: 'EXTRACT(jsonPayload.refusal.status)',
          reason: 'EXTRACT(jsonPayload.refusal.reason)',
        },
      },
      child,
    );
    // A platform API version near its sunset: the scheduler says so daily; any line opens the alert.
    const schedule = plan.functions.find((f) => f.name === 'schedule');
    if (schedule) {
      const sunset = new gcp.logging.Metric(
        `${name}-api-sunset`,
        {
          project: plan.project,
          name: API_SUNSET_METRIC,
          description: 'Destinations whose platform API version is within 60 days of its sunset, or past it',
          filter: [
            'resource.type = "cloud_run_revision"',
            `resource.labels.service_name = "${schedule.service}"`,
            'jsonPayload.api_sunset.version:*',
          ].join(' AND '),
          metricDescriptor: {
            metricKind: 'DELTA',
            valueType: 'INT64',
            labels: [
              { key: 'destination', valueType: 'STRING', description: 'The destination id' },
              { key: 'version', valueType: 'STRING', description: 'The API version it sends' },
            ],
          },
          labelExtractors: {
            destination: 'EXTRACT(jsonPayload.api_sunset.destination)',
            version: 'EXTRACT(jsonPayload.api_sunset.version)',
          },
        },
        child,
      );
      policies.push(
        new gcp.monitoring.AlertPolicy(
          `${name}-api-sunset`,
          {
            project: plan.project,
            displayName: `eventbus ${plan.environment}: a platform API version nears its sunset`,
            combiner: 'OR',
            conditions: [
              {
                displayName: 'the scheduler warned of an API sunset',
                conditionThreshold: {
                  filter: pulumi.interpolate`metric.type = "logging.googleapis.com/user/${sunset.name}" AND resource.type = "cloud_run_revision"`,
                  comparison: 'COMPARISON_GT',
                  thresholdValue: 0,
                  duration: '0s',
                  aggregations: [
                    {
                      alignmentPeriod: '3600s',
                      perSeriesAligner: 'ALIGN_SUM',
                      crossSeriesReducer: 'REDUCE_SUM',
                    },
                  ],
                },
              },
            ],
            documentation: {
              mimeType: 'text/markdown',
              content:
                'A destination sends a platform API version that retires within 60 days (or has): from then every delivery to it fails. The log line names the destination, version and date; upgrade eventbus (docs/platforms.md, "API versions").',
            },
          },
          child,
        ),
      );
    }
    this.policies = policies;
    this.registerOutputs({});
  }
}
