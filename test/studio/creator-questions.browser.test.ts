/**
 * The creator's questions, evidence and fixed currency (issue #80) in Debian's Chromium: a
 * Twilio message's `From` and `To` asked about (From preselected, To the receiving number),
 * answered the other way round and back; every guess's evidence and confidence under its why;
 * a field name the save would refuse (`topic`) marked and the save held back; cents with no
 * currency column (Patreon's `pledge_amount_cents`) scaled by a typed currency, saved as the
 * translator's `major_units: { currency }`; PayPal's webhook envelope offered PayPal's
 * certificate scheme (its webhook id asked for, no secret), a choice of the person's kept; a
 * question about one column ("is user_id the person's id?") answered no, its column then kept as
 * an event field, and answered yes again (issue #94); a user id beside the contact a change is
 * about asked, the contact's id preselected, and a batch's envelope id asked when its events have
 * no id of their own (issue #94); a user's id and e-mail beside a contact's id asked, the
 * contact's id preselected, the user's lone e-mail then preselected no and saved so as a plain
 * field (issue #94). Screenshots go to $SCREENSHOTS or a temporary folder.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'creator-questions-admin-token-0123456789';
const TWILIO = readFileSync(
  new URL('../fixtures/sources/creator/twilio-sms-received.synthetic.form', import.meta.url),
  'utf8',
);
const PAYPAL = readFileSync(
  new URL('../fixtures/sources/creator/paypal-capture-completed.synthetic.json', import.meta.url),
  'utf8',
);
const PLEDGE = JSON.stringify({
  data: {
    id: 'pl-1',
    attributes: { pledge_amount_cents: 500, created_at: '2026-11-20T10:00:00.000+00:00', topic: 'pledge' },
  },
});

/** A payment gateway's callback: a `user_id` beside nothing of the person's, asked about alone. */
const CALLBACK = JSON.stringify({
  id: 'inv_1',
  amount: 8500,
  currency: 'IDR',
  user_id: '6279ce4495d10c9afc3171b8',
});

/** A booking: its own `id` beside `eventId`, the id of the calendar event it describes (`eventData`). */
const BOOKING = JSON.stringify({
  id: 206,
  eventId: 98146,
  email: 'jane@example.com',
  eventData: { name: 'Weekly call', location: 'online' },
});

/** A CRM's change to a contact, made by a system user: the user's id beside the contact's. */
const CHANGE = JSON.stringify({
  MessageName: 'Update',
  PrimaryEntityId: '6d81597f-0f9f-e711',
  PrimaryEntityName: 'contact',
  InitiatingUserId: '75c2dd85-e89e-e711',
  UserId: '75c2dd85-e89e-e711',
  OperationCreatedOn: '2026-11-20T10:00:00Z',
});

/** A support call, flat: the customer's id beside the id, name and e-mail of the user who took it. */
const CALL = JSON.stringify({
  ticket_id: 67890,
  contact_id: 11111,
  user_id: 22222,
  user_name: 'Sam Agent',
  user_email: 'sam.agent@example.com',
  duration: 180,
});

/**
 * A batch of events without ids of their own, under an envelope's id; the list inside `data`, so
 * the page offers no records (a list at the top would be taken as the rows).
 */
const BATCH = JSON.stringify({
  id: 'b-77',
  data: { received: 2, events: [{ type: 'opened' }, { type: 'clicked' }] },
});

describe('studio creator: questions, evidence and a fixed currency', function () {
  this.timeout(60_000);
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'creator-questions-shots-'));
  mkdirSync(shots, { recursive: true });
  const ui = studioInBrowser('creator-questions', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  const open = async (text: string) => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/#token=${TOKEN}`);
    await page.getByLabel('Paste the raw data').fill(text);
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/^Read as /).waitFor();
    return { page, errors };
  };

  /** Saves the page as it stands, its rows fitting, the sender proving itself by a URL token; the translator saved. */
  const saveLive = async (page: Page, translator: string) => {
    await page.getByText('The sample row fits the definition.').waitFor();
    await page.getByLabel('The sender sends').selectOption('url_token');
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    await page.getByRole('button', { name: 'Save and go live' }).click();
    await page.locator('#endpoint').getByText(`/v1/translators/${translator}`).waitFor();
    const registry = new RegistryClient(ui.bucket());
    return (await registry.readVersion('Translator', translator, '1.0')).spec as TranslatorSpec;
  };

  it('asks whose phone a Twilio message carries, shows each guess’s evidence, and follows the answer', async () => {
    const { page, errors } = await open(TWILIO);
    const question = page.locator('fieldset[data-question="user.phone"]');
    await question.getByText(/Whose phone number is the person's/).waitFor();
    assert.equal(await question.getByRole('radio', { name: /^From \(guessed\)/ }).isChecked(), true);
    assert.equal(await page.getByLabel('Where From goes').inputValue(), 'user.phone');
    assert.equal(await page.getByLabel('Where To goes').inputValue(), 'event_data');
    const evidence = page.locator('tr[data-column="To"] .evidence');
    assert.match((await evidence.textContent()) ?? '', /% sure\. Name: .*Position: .*receiving side/);
    await question.getByRole('radio', { name: /^To:/ }).check();
    assert.equal(await page.getByLabel('Where To goes').inputValue(), 'user.phone');
    assert.equal(await page.getByLabel('Where From goes').inputValue(), 'event_data');
    assert.equal(await page.getByLabel('Field name for From', { exact: true }).inputValue(), 'from');
    await question.getByRole('radio', { name: /^From \(guessed\)/ }).check();
    assert.equal(await page.getByLabel('Where From goes').inputValue(), 'user.phone');
    // None of these: both numbers stay event fields.
    await question.getByRole('radio', { name: 'None of these: keep each as an event field' }).check();
    assert.equal(await page.getByLabel('Where From goes').inputValue(), 'event_data');
    assert.equal(await page.getByLabel('Where To goes').inputValue(), 'event_data');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('answers a question about one column no, keeping it an event field, and yes again', async () => {
    const { page, errors } = await open(CALLBACK);
    const question = page.locator('fieldset[data-question="user_id"]');
    await question.getByText(/^Is user_id the person's id\?/).waitFor();
    const yes = question.getByRole('radio', { name: /^user_id \(guessed\)/ });
    const no = question.getByRole('radio', { name: 'No: keep user_id as an event field' });
    assert.equal(await yes.isChecked(), true);
    assert.equal(await no.isChecked(), false);
    assert.equal(await page.getByLabel('Where user_id goes').inputValue(), 'user_id');
    await no.check();
    assert.equal(await page.getByLabel('Where user_id goes').inputValue(), 'event_data');
    // `user_id` is a context field's name: the event field takes `_data`, as the save requires.
    assert.equal(
      await page.getByLabel('Field name for user_id', { exact: true }).inputValue(),
      'user_id_data',
    );
    await page.locator('#questions').screenshot({ path: join(shots, 'creator-question-no.png') });
    await yes.check();
    assert.equal(await page.getByLabel('Where user_id goes').inputValue(), 'user_id');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('asks which column is the event’s own id, the payload’s own preselected, and follows the answer', async () => {
    const { page, errors } = await open(BOOKING);
    const question = page.locator('fieldset[data-question="event_id"]');
    await question.getByText(/^Which column is the event's own id\?/).waitFor();
    assert.equal(await question.getByRole('radio', { name: /^id \(guessed\)/ }).isChecked(), true);
    assert.equal(await page.getByLabel('Where id goes').inputValue(), 'event_id');
    assert.equal(await page.getByLabel('Where eventId goes').inputValue(), 'event_data');
    await page.locator('#questions').screenshot({ path: join(shots, 'creator-question-event-id.png') });
    await question.getByRole('radio', { name: /^eventId:/ }).check();
    assert.equal(await page.getByLabel('Where eventId goes').inputValue(), 'event_id');
    assert.equal(await page.getByLabel('Where id goes').inputValue(), 'event_data');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('asks whose id a user id beside the contact a change is about is, the contact’s preselected', async () => {
    const { page, errors } = await open(CHANGE);
    const question = page.locator('fieldset[data-question="user_id"]');
    await question
      .getByText(/^Which column is the person's id\? The payload is about PrimaryEntityId, a contact/)
      .waitFor();
    assert.equal(
      await question.getByRole('radio', { name: /^PrimaryEntityId \(guessed\)/ }).isChecked(),
      true,
    );
    assert.equal(await page.getByLabel('Where PrimaryEntityId goes').inputValue(), 'user_id');
    assert.equal(await page.getByLabel('Where UserId goes').inputValue(), 'event_data');
    // Whoever initiated the change is kept as a field, its why saying so.
    assert.equal(await page.getByLabel('Where InitiatingUserId goes').inputValue(), 'event_data');
    await page
      .locator('tr[data-column="InitiatingUserId"]')
      .getByText(/"initiating" in InitiatingUserId: whoever made the change/)
      .waitFor();
    await page.locator('#questions').screenshot({ path: join(shots, 'creator-question-actor.png') });
    await question.getByRole('radio', { name: /^UserId:/ }).check();
    assert.equal(await page.getByLabel('Where UserId goes').inputValue(), 'user_id');
    assert.equal(await page.getByLabel('Where PrimaryEntityId goes').inputValue(), 'event_data');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('asks whose id and e-mail a user beside a contact holds, the contact’s id preselected', async () => {
    const { page, errors } = await open(CALL);
    const id = page.locator('fieldset[data-question="user_id"]');
    await id.getByText(/^Whose id is the person's\? The payload names more than one party/).waitFor();
    assert.equal(await id.getByRole('radio', { name: /^contact_id \(guessed\)/ }).isChecked(), true);
    assert.equal(await page.getByLabel('Where contact_id goes').inputValue(), 'user_id');
    assert.equal(await page.getByLabel('Where user_id goes').inputValue(), 'event_data');
    const email = page.locator('fieldset[data-question="user.email"]');
    await email.getByText(/^Whose e-mail address is the person's\?/).waitFor();
    // The contact is the person the id question preselects: the user's e-mail, the only one, is
    // not the person's until the person says so, and still offered.
    const userEmail = email.getByRole('radio', { name: /^user_email:/ });
    const no = email.getByRole('radio', {
      name: /^No \(guessed\): keep user_email as an event field; not the person's: the contact \(contact_id\)/,
    });
    assert.equal(await no.isChecked(), true);
    assert.equal(await userEmail.isChecked(), false);
    await email
      .getByText(/the user's e-mail address; the payload also names a contact \(contact_id\)/)
      .waitFor();
    assert.equal(await page.getByLabel('Where user_email goes').inputValue(), 'event_data');
    await page.locator('#questions').screenshot({ path: join(shots, 'creator-question-rival.png') });
    await id.getByRole('radio', { name: /^user_id:/ }).check();
    assert.equal(await page.getByLabel('Where user_id goes').inputValue(), 'user_id');
    assert.equal(await page.getByLabel('Where contact_id goes').inputValue(), 'event_data');
    await userEmail.check();
    assert.equal(await page.getByLabel('Where user_email goes').inputValue(), 'user.email');
    await no.check();
    assert.equal(await page.getByLabel('Where user_email goes').inputValue(), 'event_data');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('saves the rival questions’ guesses as they are: the contact’s id the person’s, the user’s e-mail a plain field', async () => {
    const { page, errors } = await open(CALL);
    await page.locator('fieldset[data-question="user.email"]').waitFor();
    await page.getByLabel('Event name').fill('call_recorded');
    const spec = await saveLive(page, 'call-recorded-json');
    const registry = new RegistryClient(ui.bucket());
    const target = (source: string) => spec.fields.find((f) => f.source === source)?.target;
    assert.equal(target('contact_id'), 'user_id');
    assert.equal(target('user_email'), 'user_email');
    assert.equal(target('user_id'), 'user_id_data');
    assert.ok(!spec.fields.some((f) => f.target === 'user.email'), 'no column is the person’s e-mail');
    // The agent's e-mail is personal data all the same: the definition marks it so.
    const def = await registry.readVersion('EventDefinition', 'call_recorded', '1.0');
    const fields = (def.spec as { fields: { name: string; pii?: boolean }[] }).fields;
    assert.equal(fields.find((f) => f.name === 'user_email')?.pii, true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('asks whether a batch’s envelope id is the event’s own when its events have none', async () => {
    const { page, errors } = await open(BATCH);
    const question = page.locator('fieldset[data-question="event_id"]');
    await question
      .getByText(/^Is id the event's own id\? The payload carries its events in data\.events/)
      .waitFor();
    assert.equal(await question.getByRole('radio', { name: /^id \(guessed\)/ }).isChecked(), true);
    assert.equal(await page.getByLabel('Where id goes').inputValue(), 'event_id');
    await page.locator('#questions').screenshot({ path: join(shots, 'creator-question-batch.png') });
    await question.getByRole('radio', { name: 'No: keep id as an event field' }).check();
    assert.equal(await page.getByLabel('Where id goes').inputValue(), 'event_data');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('offers PayPal’s certificate scheme for a PayPal webhook event, asking for its webhook id, not a secret', async () => {
    const { page, errors } = await open(PAYPAL);
    await page
      .getByText(/^Offered from the sample: a PayPal webhook event \(PAYMENT\.CAPTURE\.COMPLETED\)/)
      .waitFor();
    assert.equal(await page.getByLabel('The sender sends').inputValue(), 'signature');
    assert.equal(await page.getByLabel('Signature scheme').inputValue(), 'paypal');
    assert.equal(await page.getByLabel('webhook id').isVisible(), true);
    assert.equal(await page.getByLabel('Secret name (Secret Manager)').isVisible(), false);
    assert.equal(await page.getByLabel('topic arns').isVisible(), false);
    // A choice of the person's stands: reading the sample again does not undo it.
    await page.getByLabel('The sender sends').selectOption('url_token');
    await page.getByRole('button', { name: 'Read the sample' }).click();
    await page.getByText(/^Offered from the sample/).waitFor();
    assert.equal(await page.getByLabel('The sender sends').inputValue(), 'url_token');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('holds the save back while a field name is one the save refuses', async () => {
    const { page } = await open(TWILIO);
    await page.getByLabel('Event name').fill('sms_received');
    const field = page.getByLabel('Field name for Body');
    await field.fill('topic');
    await page
      .getByText(/Field name "topic" \(column Body\) cannot be used: topic is a context field/)
      .waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await field.fill('message_body');
    await page.getByText('The sample row fits the definition.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), false);
    await page.close();
  });

  it('scales cents with no currency column by the one currency typed, as major_units: { currency }', async () => {
    const { page, errors } = await open(PLEDGE);
    await page.getByLabel('Event name').fill('pledge_made');
    await page.getByText(/name says cents, and no column holds a currency/).waitFor();
    await page.getByLabel(/are minor units \(cents\)/).check();
    await page.getByText(/type the currency they are all in/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show what will be saved' }).isDisabled(), true);
    await page.getByLabel('No column holds their currency: they are all in').fill('usd');
    const spec = await saveLive(page, 'pledge-made-json');
    const value = spec.fields.find((f) => f.source === 'data.attributes.pledge_amount_cents');
    assert.deepEqual(value?.transforms, [{ major_units: { currency: 'USD' } }]);
    assert.ok(
      spec.fields.some((f) => f.source === 'data.attributes.topic' && f.target === 'data_attributes_topic'),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
