/**
 * The Cloud Logging exclusion of successful request logs (plan().requestLogs, docs/scale.md):
 * Cloud Run writes one request log entry per request, and at three requests an event (the
 * publish, the store push, each forward push) they were the largest item of the busy cost. Only
 * entries of the eventbus services with a status below 400 are dropped: errors (5xx), refusals
 * (4xx) and entries without a status (a client gone before the answer) are kept, and so are the
 * functions' own structured log lines, which are not request logs.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';

/** The exclusion's filter (Logging query language; a missing status compares false, so it stays). */
export function successfulRequestsFilter(services: readonly string[]): string {
  const names = services.map((s) => `"${s}"`).join(' OR ');
  return [
    'log_id("run.googleapis.com/requests")',
    'resource.type="cloud_run_revision"',
    `resource.labels.service_name=(${names})`,
    'httpRequest.status<400',
  ].join(' AND ');
}

export class RequestLogs extends pulumi.ComponentResource {
  readonly exclusion: gcp.logging.ProjectExclusion | undefined;

  constructor(name: string, args: { readonly plan: Plan }, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:RequestLogs', name, {}, opts);
    const { plan } = args;
    this.exclusion = plan.requestLogs.excludeSuccessful
      ? new gcp.logging.ProjectExclusion(
          `${name}-exclude-successful-requests`,
          {
            project: plan.project,
            name: `eventbus-${plan.environment}-successful-requests`,
            description: `eventbus (${plan.environment}): request logs of successful publishes and pushes; errors and refusals are kept`,
            filter: successfulRequestsFilter(plan.requestLogs.services),
          },
          { parent: this, dependsOn: opts?.dependsOn ?? [] },
        )
      : undefined;
    this.registerOutputs({});
  }
}
