/**
 * The id rules that run last, once every other question is asked (issue #94): they read which
 * columns the questions already offer and rewrite guesses and questions in place. An event id in
 * the envelope's header object (held-event-id.ts), a flat record's references where no event id
 * is taken (flat-reference.ts), the ids named for the event's person (role-id.ts), then the id
 * of an object that says it holds a person (person-kind.ts), an id named for a person beside
 * their e-mail or phone (contact-beside-id.ts), the e-mail beside the person's id
 * (email-beside-id.ts), a bare `email` beside an address named for the person's role
 * (role-address.ts), then a software user's name beside another party (rival-names.ts), an
 * event id many events share (shared-id.ts), an id inside a domain thing named `event`
 * (domain-event.ts), a plain id where no event id is taken or asked
 * (plain-id-offer.ts), an id named for the record the event's name names where still none is
 * (event-record-id.ts), a time written as a stand-in where none is taken (stand-in-time.ts);
 * a person's id a question preselects no for is kept as a field; last, an always-empty column
 * named for the person's id is offered where none is taken or asked (empty-person-id.ts), the
 * person's id where a record change has no id (person-id-event.ts), and a status report's
 * recipient where no phone is taken or asked (report-recipient.ts). Pure, but for the guesses and
 * questions they rewrite.
 */
import { contactBesideIdQuestion } from './contact-beside-id.ts';
import { domainEventRule } from './domain-event.ts';
import { emailBesideIdRule } from './email-beside-id.ts';
import { emptyPersonIdQuestion } from './empty-person-id.ts';
import { eventRecordIdQuestion } from './event-record-id.ts';
import { flatReferenceRule } from './flat-reference.ts';
import { heldEventIdRule } from './held-event-id.ts';
import { personIdEventQuestion } from './person-id-event.ts';
import { askedIdsAsFields } from './person-id-evidence.ts';
import { personKindIdQuestion } from './person-kind.ts';
import { plainIdQuestion } from './plain-id-offer.ts';
import type { Question } from './questions.ts';
import { reportRecipientQuestion } from './report-recipient.ts';
import { rivalNameRule } from './rival-names.ts';
import { roleAddressRule } from './role-address.ts';
import { roleIdRules } from './role-id.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { sharedIdRule } from './shared-id.ts';
import { standInTimeQuestion } from './stand-in-time.ts';

export function lateIdRules(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
  questions: Question[],
): void {
  heldEventIdRule(fields, rows, base, questions);
  flatReferenceRule(base, fields, rows, questions);
  roleIdRules(fields, base, questions);
  const kindAsk = personKindIdQuestion(base, fields, questions);
  if (kindAsk) questions.push(kindAsk);
  const contactAsk = contactBesideIdQuestion(fields, base, questions);
  if (contactAsk) questions.push(contactAsk);
  emailBesideIdRule(fields, base, questions);
  roleAddressRule(fields, base, questions);
  rivalNameRule(fields, base, questions);
  sharedIdRule(fields, base, questions);
  domainEventRule(fields, base, questions);
  const plainAsk = plainIdQuestion(fields, base, questions);
  if (plainAsk) questions.push(plainAsk);
  const recordAsk = eventRecordIdQuestion(fields, base, questions);
  if (recordAsk) questions.push(recordAsk);
  const timeAsk = standInTimeQuestion(fields, base, questions);
  if (timeAsk) questions.push(timeAsk);
  askedIdsAsFields(base, questions);
  const personEventAsk = personIdEventQuestion(fields, base, questions);
  if (personEventAsk) questions.push(personEventAsk);
  const recipientAsk = reportRecipientQuestion(fields, base, questions);
  if (recipientAsk) questions.push(recipientAsk);
  const emptyIdAsk = emptyPersonIdQuestion(fields, base, questions);
  if (emptyIdAsk) questions.push(emptyIdAsk);
}
