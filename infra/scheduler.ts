/**
 * The scheduler's clock (docs/scheduler.md): one Cloud Scheduler job per environment publishes a
 * tick on the `ticks` topic every minute; the `schedule` function, pushed from `ticks-schedule`,
 * dispatches run messages. Cloud Scheduler publishes as its own service agent, which Google grants
 * the Pub/Sub publish it needs when the API is enabled.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import { type Plan, TICKS_TOPIC } from '../core/plan.ts';

export interface SchedulerArgs {
  readonly plan: Plan;
  readonly region: string;
}

export class Scheduler extends pulumi.ComponentResource {
  readonly job: gcp.cloudscheduler.Job;

  constructor(name: string, args: SchedulerArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Scheduler', name, {}, opts);
    const { plan } = args;
    this.job = new gcp.cloudscheduler.Job(
      `${name}-tick`,
      {
        project: plan.project,
        region: args.region,
        name: `eventbus-${plan.environment}-tick`,
        description: 'The eventbus scheduler tick: syncs, scheduled rules and dead-letter re-drive',
        schedule: '* * * * *',
        timeZone: 'Etc/UTC',
        pubsubTarget: {
          topicName: `projects/${plan.project}/topics/${TICKS_TOPIC}`,
          data: Buffer.from('{"tick":true}').toString('base64'),
          attributes: { type: 'tick' },
        },
      },
      { parent: this, dependsOn: opts?.dependsOn ?? [] },
    );
    this.registerOutputs({ job: this.job.name });
  }
}
