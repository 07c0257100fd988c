/**
 * How GA4 Measurement Protocol answers are read (docs/platforms.md §2): 429 and 5xx are sent
 * again, any other non-2xx is refused. `/mp/collect` answers 2xx to anything, so only test mode
 * (the validation server, `/debug/mp/collect`) can refuse an event: by its `validationMessages`.
 */
import { pickEach, platformAnswer } from '../platform-answer.ts';
import { httpReason, networkReason, type ResponseTable, throttledOrServerError } from '../responses.ts';

interface ValidationMessage {
  fieldPath?: string;
  description?: string;
  validationCode?: string;
}

export const GA4_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: httpReason,
  refused: httpReason,
  // Only the validation server answers with a body: its messages are kept; `/mp/collect` says nothing.
  answer: ({ json }) =>
    platformAnswer({
      excerpt: {
        validationMessages: pickEach(
          (json as { validationMessages?: unknown } | undefined)?.validationMessages,
          ['fieldPath', 'description', 'validationCode'],
        ),
      },
    }),
  ok({ json }, ctx) {
    if (ctx.destination.test_mode !== true) return { status: 'delivered' };
    const messages =
      (json as { validationMessages?: ValidationMessage[] } | undefined)?.validationMessages ?? [];
    if (messages.length > 0) {
      const reason = messages
        .map((m) => `${m.validationCode ?? 'INVALID'} ${m.fieldPath ?? ''}: ${m.description ?? ''}`.trim())
        .join('; ');
      return { status: 'rejected', reason: `ga4 validation: ${reason}` };
    }
    return { status: 'delivered', detail: 'validated by /debug/mp/collect (not recorded by GA4)' };
  },
};
