/**
 * `eventbus preview --destination <id> <event.json | ->`: prints exactly what would be sent
 * to a destination (method, URL and headers with secrets redacted, body), or what stops the
 * event (invalid, skipped by the decision layer, mapping or platform requirements), sending nothing.
 * A `segment_action` destination's requests are those its actions build, one after another, each
 * credential as `secret:<role>`, then each action's outcome had the platform answered 200.
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { PreviewRequest, PreviewResult, RequestsPreviewResult } from '../../core/delivery/preview.ts';
import { readEnvironment } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';

/** Renders a preview as the CLI prints it (text) — the request(s) as HTTP, or the reason. */
export function renderPreview(result: RequestsPreviewResult): string {
  switch (result.outcome) {
    case 'invalid_event':
      return `invalid event, nothing would be stored or sent:\n${result.violations.map((v) => `  ${v.field}: ${v.description}`).join('\n')}\n`;
    case 'skipped':
      return `skipped by the decision layer: ${result.reason}\n`;
    case 'not_sent':
      return `not sent: ${result.reason}\n`;
    case 'send':
      return `${renderRequest(result.request)}${renderOrigins(result)}`;
    case 'send_actions': {
      const outcomes = result.outcomes.map(
        ({ action, outcome }) =>
          `#   ${action}: ${outcome.status}${'reason' in outcome ? ` (${outcome.reason})` : ''}`,
      );
      return `${result.requests.map(renderRequest).join('\n')}\n# the actions, had the platform answered 200:\n${outcomes.join('\n')}\n`;
    }
  }
}

/** One request as HTTP: the request line, the headers, a blank line, the body. */
function renderRequest(r: PreviewRequest): string {
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`);
  const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2);
  return `${r.method} ${r.url}\n${headers.join('\n')}\n\n${body}\n`;
}

/** Whether a preview ends in requests (the others say why none would be made). */
const sends = (r: RequestsPreviewResult): boolean => r.outcome === 'send' || r.outcome === 'send_actions';

/** The fields' origins and what was left out, as `#` lines after the request. */
function renderOrigins(result: Extract<PreviewResult, { outcome: 'send' }>): string {
  const lines = (result.fields ?? []).map(
    (f) => `#   ${f.target} ← ${f.source}${f.transforms.length > 0 ? ` (${f.transforms.join(', ')})` : ''}`,
  );
  const out = lines.length > 0 ? [`\n# where the mapped fields came from:`, ...lines] : [];
  if (result.dropped) out.push(`# left out: ${result.dropped}`);
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

export function register(program: Command): void {
  program
    .command('preview')
    .description(
      'Show exactly what one event would send to a destination (secrets redacted), or why it would not be sent; sends nothing',
    )
    .requiredOption('--destination <id>', 'destination id from the settings')
    .option('--env <name|file>', 'environment name or settings file', 'local')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .argument('<event>', 'event JSON file, or - for stdin')
    .addHelpText(
      'after',
      '\nExamples:\n  eventbus preview --destination meta event.json\n  echo \'{"event_name":"page_view"}\' | eventbus preview --destination ga4 --env example -',
    )
    .action(
      async (
        file: string,
        options: { destination: string; env: string; format: string },
        command: Command,
      ) => {
        const out = writerOf(command);
        const { settings } = await readEnvironment(options.env);
        let raw: unknown;
        try {
          raw = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
        } catch (err) {
          throw new CliError(
            `cannot read event ${file === '-' ? 'from stdin' : file}: ${(err as Error).message}`,
          );
        }
        const { previewDeliveryRequests } = await import('../../core/delivery/preview.ts');
        const { previewActions } = await import('../../adapters/segment-actions/load-preview.ts');
        // The enrichment store would apply, with its referrer list and geography database.
        const { loadEnricher } = await import('../../adapters/enrichment.ts');
        const enrich = loadEnricher(settings);
        const result = await previewDeliveryRequests(
          settings,
          options.destination,
          raw,
          new Date(),
          previewActions,
          {
            ...(enrich ? { enrich } : {}),
          },
        );
        if (options.format === 'json') out(`${JSON.stringify(result, null, 2)}\n`);
        else if (sends(result)) out(renderPreview(result));
        // Nothing would be sent: say why on stderr and exit non-zero (2 for an invalid event).
        if (!sends(result))
          throw new CliError(renderPreview(result).trimEnd(), result.outcome === 'invalid_event' ? 2 : 1);
      },
    );
}
