/**
 * The creator's questions on the page (docs/creator-inference.md#evidence-and-questions): where
 * two readings of the payload compete (whose phone or e-mail, which amount is the value), the
 * guesses' question is shown with each option's why, the guess preselected; picking another
 * option gives that column the target and keeps the others as event fields under their own
 * names. Every question can also be answered no (a one-option question, "is this the person's
 * id?") or none of these: then every column it asks about is kept as an event field; a question
 * whose guess is no (`noneGuessed`) shows that answer preselected, with why. And the field names the person types, checked with the save's own rule
 * (core/translate/spec.ts) as they type, so a save the server would refuse cannot be made.
 * Browser-only: the page's elements.
 */
import { type ColumnChoice, NONE } from '../../core/samples/draft.ts';
import type { Question } from '../../core/samples/index.ts';
import { dataFieldName } from '../../core/samples/suggest.ts';
import { eventFieldProblem } from '../../core/translate/spec.ts';
import { $, el } from './common.ts';

/**
 * The words of the no answer: "No" to a question about one column, "None of these" to several;
 * marked as the guess, with why, when the question preselects it.
 */
function noneLabel(q: Question): string {
  const [only] = q.options;
  const guessed = q.noneGuessed ? ' (guessed)' : '';
  const head =
    q.options.length === 1 && only
      ? `No${guessed}: keep ${only.column} as an event field`
      : `None of these${guessed}: keep each as an event field`;
  return q.noneGuessed ? `${head}; ${q.noneGuessed.why}` : head;
}

/** Shows the questions; `picked` hears the column chosen for each (`NONE` for no). */
export function showQuestions(
  questions: readonly Question[],
  picked: (q: Question, column: string) => void,
): void {
  const box = $('questions');
  box.hidden = questions.length === 0;
  box.replaceChildren(
    ...questions.map((q, i) =>
      el(
        'fieldset',
        { class: 'question', 'data-question': q.field ?? q.target },
        el('legend', {}, q.ask),
        ...q.options.map((o, j) => {
          const id = `question-${i}-${j}`;
          const radio = el('input', { type: 'radio', name: `question-${i}`, id, value: o.column });
          const guessed = j === 0 && !q.noneGuessed;
          radio.checked = guessed;
          radio.addEventListener('change', () => picked(q, o.column));
          return el(
            'span',
            { class: 'pair' },
            radio,
            el(
              'label',
              { for: id },
              el('span', { class: 'code' }, o.column),
              guessed ? ' (guessed): ' : ': ',
              o.why,
            ),
          );
        }),
        noAnswer(q, i, picked),
      ),
    ),
  );
}

/**
 * The radio that answers a question no, after its options; checked, with why, when the guess is
 * no (`noneGuessed`: the columns are already event fields, so accepting it changes nothing).
 */
function noAnswer(q: Question, i: number, picked: (q: Question, column: string) => void): HTMLElement {
  const id = `question-${i}-none`;
  const radio = el('input', { type: 'radio', name: `question-${i}`, id, value: NONE });
  radio.checked = q.noneGuessed !== undefined;
  radio.addEventListener('change', () => picked(q, NONE));
  return el('span', { class: 'pair' }, radio, el('label', { for: id }, noneLabel(q)));
}

/** Each event field whose name the save would refuse, as the sentence the page shows. */
export function fieldNameProblems(choices: readonly ColumnChoice[]): string[] {
  return choices.flatMap((c) => {
    if (c.target !== 'event_data') return [];
    const name = c.field ?? dataFieldName(c.column);
    const why = eventFieldProblem(name);
    return why
      ? [
          `Field name "${name}" (column ${c.column}) ${why.startsWith('must') ? why : `cannot be used: ${why}`}.`,
        ]
      : [];
  });
}
