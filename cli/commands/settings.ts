/**
 * `eventbus settings check [file]`: validates an environment's settings and prints what the
 * environment consists of (plan()): topics, subscriptions, functions, destinations, tables.
 */
import type { Command } from 'commander';
import type { Plan } from '../../core/plan.ts';
import { loadEnvironment } from '../environment.ts';
import { formatOption, type OutputFormat, renderTable, section, writerOf } from '../output.ts';

export function register(program: Command): void {
  const settings = program.command('settings').description("Work with an environment's settings file");
  settings
    .command('check')
    .description(
      'Validate a settings file and print the plan: topics, subscriptions (push target, filter, retry, dead letter), functions, destinations, tables and views',
    )
    .argument('[file]', 'settings file, or an environment name (local → environments/local.yaml)', 'local')
    .addOption(formatOption(['table', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n  eventbus settings check\n  eventbus settings check environments/example.yaml --format json',
    )
    .action(async (file: string, options: { format: OutputFormat }, command: Command) => {
      const { path, plan, settings } = await loadEnvironment(file);
      const write = writerOf(command);
      if (options.format === 'json') write(`${JSON.stringify(plan, null, 2)}\n`);
      else write(`${path}: valid\n\n${renderPlan(plan)}`);
      const { retryBudgetWarnings } = await import('../../core/plan-warnings/retry-budget.ts');
      const { addressWarnings } = await import('../../core/settings.ts');
      const { buildRegionWarnings } = await import('../../core/plan-warnings/build-regions.ts');
      const { billingAdvice, billingRecommendation } = await import('../../core/deploy/billing-advice.ts');
      const { claimsRecommendation } = await import('../../core/deploy/claims-advice.ts');
      const { studioIapWarnings } = await import('../../core/deploy/studio-iap.ts');
      const { retentionWarnings } = await import('../../core/plan-warnings/retention.ts');
      const { minInstancesWarnings } = await import('../../core/plan-warnings/min-instances.ts');
      const { customerMatchTermsWarnings } = await import('../../core/plan-warnings/customer-match-terms.ts');
      const { apiSunsetWarnings } = await import('../../core/plan-warnings/api-sunset.ts');
      const { webhookFormatWarnings } = await import('../../core/platforms/webhook/warnings.ts');
      const { catalogActionWarnings } = await import('../../core/plan-warnings/catalog-actions.ts');
      const { siteUrlMapWarnings } = await import('../../core/deploy/site-url-map.ts');
      const warn = command.configureOutput().writeErr ?? ((t: string) => process.stderr.write(t));
      const recommended = billingRecommendation(settings, plan);
      const claimStore = claimsRecommendation(settings, plan);
      for (const w of [
        ...(recommended ? [recommended.message] : []),
        ...(claimStore ? [claimStore.message] : []),
        ...retryBudgetWarnings(plan),
        ...addressWarnings(settings),
        ...buildRegionWarnings(plan),
        ...studioIapWarnings(settings),
        ...retentionWarnings(settings),
        ...minInstancesWarnings(settings),
        ...customerMatchTermsWarnings(settings),
        ...apiSunsetWarnings(settings, new Date()),
        ...catalogActionWarnings(settings),
        ...webhookFormatWarnings(settings, new Date()),
        ...siteUrlMapWarnings(settings),
        ...billingAdvice(settings, plan).map((a) => a.message),
      ])
        warn(`warning: ${w}\n`);
    });
}

/** The plan as titled tables, the way `settings check` prints it. */
export function renderPlan(p: Plan): string {
  const parts = [
    section(
      'Environment',
      renderTable([
        {
          name: p.environment,
          project: p.project,
          region: p.region,
          dataset: p.dataset,
          location: p.location,
          secrets: p.secrets,
        },
      ]),
    ),
    section(
      'Topics',
      renderTable(p.topics.map((t) => ({ name: t.name, kind: t.kind, producers: t.producers ? 'yes' : '' }))),
    ),
    section(
      'Subscriptions',
      renderTable(
        p.subscriptions.map((s) => ({
          name: s.name,
          topic: s.topic,
          push: s.push ? `→ ${s.push.function}` : 'pull',
          filter: s.filter ?? '',
          retry: s.retryPolicy ? `${s.retryPolicy.minimumBackoff}–${s.retryPolicy.maximumBackoff}` : '',
          'dead letter': s.deadLetterPolicy
            ? `${s.deadLetterPolicy.deadLetterTopic} after ${s.deadLetterPolicy.maxDeliveryAttempts}`
            : '',
          ack: `${s.ackDeadlineSeconds}s`,
          retention: retentionText(s.messageRetentionDuration),
        })),
      ),
    ),
    section(
      'Functions',
      renderTable(
        p.functions.map((f) => ({
          name: f.name,
          'entry point': f.entryPoint,
          triggers: f.triggers,
          sizing: `${f.sizing.memory}, ${f.sizing.cpu} cpu, ${f.sizing.concurrency} concurrent, ${f.sizing.min_instances}–${f.sizing.max_instances} instances`,
          secrets: f.secrets,
        })),
      ),
    ),
    section(
      'Destinations',
      renderTable(
        p.destinations.map((d) => ({
          id: d.id,
          type: d.type,
          topic: d.topic,
          subscription: d.subscription,
          attempts: d.maxDeliveryAttempts,
          consent: d.consent,
          secrets: d.secrets,
        })),
      ),
    ),
    section(
      'Tables',
      renderTable(
        p.tables.map((t) => ({
          name: t.name,
          columns: t.columns.length,
          partitioning: t.timePartitioning ? `${t.timePartitioning.type}(${t.timePartitioning.field})` : '',
          clustering: t.clustering ?? [],
        })),
      ),
    ),
    section('Views', renderTable(p.views.map((v) => ({ name: v.name, description: v.description })))),
  ];
  return parts.join('');
}

function retentionText(duration: string): string {
  const s = Number(duration.slice(0, -1));
  return s % 86400 === 0 ? `${s / 86400}d` : duration;
}
