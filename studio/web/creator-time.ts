/**
 * The creator's blocking question about the event time (docs/studio.md, step 2;
 * docs/creator-inference.md#guesses): when the column that would be the event time holds times
 * outside the gateway's accepted window (`guesses.eventTime.outside`), nothing is replaced out of
 * sight. The person chooses: use the column anyway (rows outside the window are then refused),
 * use the arrival time (the column stays a field), or fix the sample; until then nothing is saved.
 */
import type { Guesses } from '../../core/samples/index.ts';
import { $ } from './common.ts';

/** An RFC 3339 time to the minute, as a person reads it (`2026-11-18 12:39 UTC`). */
const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

let outside: string | undefined;
let answer: string | undefined;

/** The column's select in the fields table, moved as if the person had moved it. */
function moveColumn(column: string, target: string): void {
  const select = [...$('fields').querySelectorAll<HTMLSelectElement>('select[data-column]')].find(
    (s) => s.dataset['column'] === column,
  );
  if (!select || select.value === target) return;
  select.value = target;
  select.dispatchEvent(new Event('change'));
}

/** Asks the question when the guesses found times outside the window; hides it otherwise. */
export function showTimeQuestion(eventTime: Guesses['eventTime'], changed: () => void): void {
  outside = eventTime.outside?.column;
  answer = undefined;
  $('time-question').hidden = outside === undefined;
  for (const radio of $('time-question').querySelectorAll<HTMLInputElement>('input[type=radio]')) {
    radio.checked = false;
    radio.onchange = () => {
      answer = radio.value;
      if (outside && answer === 'column') moveColumn(outside, 'event_time');
      if (outside && answer === 'arrival') moveColumn(outside, 'event_data');
      changed();
    };
  }
  const asked = eventTime.outside;
  if (!asked) return;
  $('time-column-name').textContent = asked.column;
  const examples = asked.values.map((v) => JSON.stringify(v)).join(', ');
  const share =
    asked.outside < asked.read
      ? `${asked.outside} of its ${asked.read} sample values fall`
      : asked.read === 1
        ? 'its sample value falls'
        : `all ${asked.read} of its sample values fall`;
  $('time-question-why').textContent =
    `${asked.column}: ${share} outside the window the gateway accepts (${minute(asked.from)} to ${minute(asked.to)})${examples ? `, e.g. ${examples}` : ''}.`;
}

/** Why nothing can be saved yet because of the question, or undefined once it is answered. */
export function timeBlock(): string | undefined {
  if (!outside) return undefined;
  if (answer === undefined)
    return `Answer the question about ${outside} first: its times are outside the accepted window.`;
  if (answer === 'fix') return `Paste a sample with recent times in ${outside} and read it again.`;
  return undefined;
}
