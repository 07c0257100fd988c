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
 * field (issue #94); the event's own id answered no, for its three questions (which column, a
 * batch's envelope id, an id beside what the delivery was sent to), saved with no key from the
 * columns refused (issue #94). Each question is said once, as data (`Asked`: its title, options and
 * guess; `Step`: an answer and what the page then shows), checked by `shows` and `follows`.
 * Screenshots go to $SCREENSHOTS or a temporary folder.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { parseAllDocuments } from 'yaml';
import { RegistryClient } from '../../adapters/registry.ts';
import type { TranslatorSpec } from '../../schemas/translator.ts';
import { creatorWithSample, studioInBrowser } from '../support/studio-browser.ts';

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

/**
 * A clinic system's notice: its `eventId` beside the subscription it was delivered to, and no
 * time, so it may be one delivery attempt's id; the booking the event's type names offered beside it.
 */
const NOTICE = JSON.stringify({
  subscriptionId: '692597070fe21cfa5e6a010f',
  eventId: '692597070fe21cfa5e6a010a',
  eventType: 'booking.created',
  identifiers: { bookingId: '507f1f77bcf86cd799439011' },
});

/** The value of a question's no answer (studio/web/creator-questions.ts `NONE`). */
const NONE = '';

/** Column → what the page's control shows for it. */
type Where = Readonly<Record<string, string>>;

/** One of the creator's questions, as the page should show it once the sample is read. */
interface Asked {
  /** Its `data-question`: the target or event field it asks about. */
  readonly about: string;
  /** Its title. */
  readonly ask: RegExp;
  /** Every option's column, in order (the no answer comes after them). */
  readonly options: readonly string[];
  /** The column ticked, or NONE when the no answer is. */
  readonly guessed: string;
  /** Where the guess puts each column (`Where X goes`). */
  readonly where: Where;
}

/** One step of answering a question: the option picked (a column, or NONE), then the page's state. */
interface Step {
  readonly pick?: string;
  readonly where?: Where;
  /** The event fields' names then (`Field name for X`). */
  readonly names?: Where;
  /** A screenshot then, under this file name. */
  readonly shot?: string;
  /**
   * "Show what will be saved" then: the saved translator takes no event id from these columns
   * (no `key` of them, no `event_id` from them), and the page says the body's digest makes it.
   */
  readonly unkeyed?: readonly string[];
}

/** A column's name as a regular expression's literal text. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('studio creator: questions, evidence and a fixed currency', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('creator-questions', { adminToken: TOKEN, gatewayUrl: 'http://127.0.0.1:8080' });

  const open = (text: string) => creatorWithSample(ui.browser(), `${ui.studio().url}/#token=${TOKEN}`, text);

  /** A radio of a question by its label: an option's column (`(guessed)` when preselected), or NONE. */
  const radio = (box: Locator, q: Asked, column: string) => {
    const guessed = column === q.guessed ? ' \\(guessed\\)' : '';
    const [only] = q.options;
    const name =
      column !== NONE
        ? `^${literal(column)}${guessed}: `
        : q.options.length === 1 && only
          ? `^No${guessed}: keep ${literal(only)} as an event field${guessed ? '; ' : '$'}`
          : `^None of these${guessed}: keep each as an event field${guessed ? '; ' : '$'}`;
    return box.getByRole('radio', { name: new RegExp(name) });
  };

  /** Asserts where each column goes (`Where X goes`) and, for event fields, under which name. */
  const goes = async (page: Page, where: Where, names: Where = {}) => {
    for (const [column, target] of Object.entries(where))
      assert.equal(await page.getByLabel(`Where ${column} goes`).inputValue(), target, column);
    for (const [column, name] of Object.entries(names))
      assert.equal(
        await page.getByLabel(`Field name for ${column}`, { exact: true }).inputValue(),
        name,
        column,
      );
  };

  /**
   * A question as the sample is read: its title, its options in order and then the no answer,
   * only the guess ticked (its label saying so), and each column where the guess puts it.
   */
  const shows = async (page: Page, q: Asked) => {
    const box = page.locator(`fieldset[data-question="${q.about}"]`).filter({ hasText: q.ask });
    await box.locator('legend').getByText(q.ask).waitFor();
    const radios = box.getByRole('radio');
    assert.deepEqual(await radios.evaluateAll((rs) => rs.map((r) => (r as HTMLInputElement).value)), [
      ...q.options,
      NONE,
    ]);
    assert.deepEqual(
      await radios.evaluateAll((rs) => rs.filter((r) => (r as HTMLInputElement).checked).length),
      1,
    );
    assert.equal(await radio(box, q, q.guessed).isChecked(), true);
    await goes(page, q.where);
    return box;
  };

  /**
   * A screenshot of the page's questions, whole: taken once the row check has redrawn the sample's
   * table above them (it moves them down; a picture taken meanwhile was cropped at a title),
   * with a margin around them, and every title, explanation and option checked to be inside it.
   */
  const frame = async (page: Page, file: string) => {
    await page.locator('#row-check.ok, #row-check.warn').waitFor();
    const questions = page.locator('#questions');
    // In the middle of the window, whatever a click left: the margin must fit inside it too.
    await questions.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    const box = await questions.boundingBox();
    const view = page.viewportSize();
    assert.ok(box && view, 'the questions are shown');
    const x = Math.max(0, box.x - 8);
    const y = Math.max(0, box.y - 8);
    const clip = {
      x,
      y,
      width: Math.min(view.width, box.x + box.width + 8) - x,
      height: box.y + box.height + 8 - y,
    };
    assert.ok(clip.y + clip.height <= view.height, `${file}: the questions are taller than the window`);
    for (const part of await questions.locator('legend, label').all()) {
      const b = await part.boundingBox();
      assert.ok(
        b &&
          b.x >= clip.x &&
          b.y >= clip.y &&
          b.x + b.width <= clip.x + clip.width &&
          b.y + b.height <= clip.y + clip.height,
        `${file}: "${await part.textContent()}" is outside the picture`,
      );
    }
    await page.screenshot({ path: join(ui.shots, file), clip });
  };

  /**
   * Clicks "Show what will be saved" (the event named if it is not) and asserts the saved
   * translator's rows take their event id from none of `columns`: a column the person refused as
   * the event's own id is never the key (issue #94); the page then says where the id comes from.
   */
  const unkeyed = async (page: Page, columns: readonly string[]) => {
    const name = page.getByLabel('Event name');
    if ((await name.inputValue()) === '') await name.fill('thing_happened');
    await page
      .locator('#identity-note')
      .getByText(/No key: .*made from the request body's digest/)
      .waitFor();
    await page.getByRole('button', { name: 'Show what will be saved' }).click();
    const yaml = page.locator('#yaml');
    await yaml.waitFor();
    const translator = parseAllDocuments((await yaml.textContent()) ?? '')
      .map((d) => d.toJS() as { kind?: string; spec?: TranslatorSpec })
      .find((d) => d.kind === 'Translator')?.spec;
    assert.ok(translator, 'the translator is shown');
    const keyed = [
      ...(translator.key ?? []).flat(),
      ...translator.fields.flatMap((f) => (f.target === 'event_id' && f.source ? [f.source].flat() : [])),
    ];
    for (const column of columns) assert.ok(!keyed.includes(column), `${column} is not the key: ${keyed}`);
  };

  /** Each step in turn: its option picked (if any), where the columns then go, its screenshot, what is saved. */
  const follows = async (page: Page, q: Asked, steps: readonly Step[]) => {
    const box = page.locator(`fieldset[data-question="${q.about}"]`).filter({ hasText: q.ask });
    for (const step of steps) {
      if (step.pick !== undefined) await radio(box, q, step.pick).check();
      await goes(page, step.where ?? {}, step.names);
      if (step.shot) await frame(page, step.shot);
      if (step.unkeyed) await unkeyed(page, step.unkeyed);
    }
  };

  /** The sample read, its question shown as `q` says, then answered step by step; the page's errors none. */
  const asks = async (sample: string, q: Asked, steps: readonly Step[]) => {
    const { page, errors } = await open(sample);
    await shows(page, q);
    await follows(page, q, steps);
    assert.deepEqual(errors, []);
    await page.close();
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
    const q: Asked = {
      about: 'user.phone',
      ask: /^Whose phone number is the person's/,
      options: ['From', 'To'],
      guessed: 'From',
      where: { From: 'user.phone', To: 'event_data' },
    };
    await shows(page, q);
    const evidence = page.locator('tr[data-column="To"] .evidence');
    assert.match((await evidence.textContent()) ?? '', /% sure\. Name: .*Position: .*receiving side/);
    await follows(page, q, [
      { pick: 'To', where: { To: 'user.phone', From: 'event_data' }, names: { From: 'from' } },
      { pick: 'From', where: { From: 'user.phone' } },
      // None of these: both numbers stay event fields.
      { pick: NONE, where: { From: 'event_data', To: 'event_data' } },
    ]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('answers a question about one column no, keeping it an event field, and yes again', () =>
    asks(
      CALLBACK,
      {
        about: 'user_id',
        ask: /^Is user_id the person's id\?/,
        options: ['user_id'],
        guessed: 'user_id',
        where: { user_id: 'user_id' },
      },
      [
        // `user_id` is a context field's name: the event field takes `_data`, as the save requires.
        {
          pick: NONE,
          where: { user_id: 'event_data' },
          names: { user_id: 'user_id_data' },
          shot: 'creator-question-no.png',
        },
        { pick: 'user_id', where: { user_id: 'user_id' } },
      ],
    ));

  it('asks which column is the event’s own id, the payload’s own preselected, and follows the answer', () =>
    asks(
      BOOKING,
      {
        about: 'event_id',
        ask: /^Which column is the event's own id\?/,
        options: ['id', 'eventId'],
        guessed: 'id',
        where: { id: 'event_id', eventId: 'event_data' },
      },
      [
        { shot: 'creator-question-event-id.png' },
        { pick: 'eventId', where: { eventId: 'event_id', id: 'event_data' } },
        // None of these: neither is the key, not even the payload's own id by the vendor's rule.
        { pick: NONE, where: { id: 'event_data', eventId: 'event_data' }, unkeyed: ['id', 'eventId'] },
      ],
    ));

  it('asks whether an event id beside what the delivery was sent to is the event’s, and obeys no', () =>
    asks(
      NOTICE,
      {
        about: 'event_id',
        ask: /^Is eventId the event's own id\? The payload names what it was delivered to \(subscriptionId\)/,
        options: ['eventId', 'identifiers.bookingId'],
        guessed: 'eventId',
        where: { eventId: 'event_id', 'identifiers.bookingId': 'event_data' },
      },
      [
        {
          pick: NONE,
          where: { eventId: 'event_data', 'identifiers.bookingId': 'event_data' },
          unkeyed: ['eventId', 'identifiers.bookingId'],
        },
      ],
    ));

  it('asks whose id a user id beside the contact a change is about is, the contact’s preselected', async () => {
    const { page, errors } = await open(CHANGE);
    const q: Asked = {
      about: 'user_id',
      ask: /^Which column is the person's id\? The payload is about PrimaryEntityId, a contact/,
      options: ['PrimaryEntityId', 'UserId'],
      guessed: 'PrimaryEntityId',
      // Whoever initiated the change is kept as a field, its why saying so.
      where: { PrimaryEntityId: 'user_id', UserId: 'event_data', InitiatingUserId: 'event_data' },
    };
    await shows(page, q);
    await page
      .locator('tr[data-column="InitiatingUserId"]')
      .getByText(/"initiating" in InitiatingUserId: whoever made the change/)
      .waitFor();
    await follows(page, q, [
      { shot: 'creator-question-actor.png' },
      { pick: 'UserId', where: { UserId: 'user_id', PrimaryEntityId: 'event_data' } },
    ]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('asks whose id and e-mail a user beside a contact holds, the contact’s id preselected', async () => {
    const { page, errors } = await open(CALL);
    const ask = /^Whose id is the person's\? The payload names more than one party/;
    const id: Asked = {
      about: 'user_id',
      ask,
      options: ['contact_id', 'user_id'],
      guessed: 'contact_id',
      where: { contact_id: 'user_id', user_id: 'event_data' },
    };
    // The contact is the person the id question preselects: the user's e-mail, the only one, is
    // not the person's until the person says so, and still offered.
    const email: Asked = {
      about: 'user.email',
      ask: /^Whose e-mail address is the person's\?/,
      options: ['user_email'],
      guessed: NONE,
      where: { user_email: 'event_data' },
    };
    await shows(page, id);
    const box = await shows(page, email);
    await box
      .getByText(/the user's e-mail address; the payload also names a contact \(contact_id\)/)
      .waitFor();
    await box
      .getByText(/; not the person's: the contact \(contact_id\) is preselected as the person/)
      .waitFor();
    await follows(page, email, [{ shot: 'creator-question-rival.png' }]);
    await follows(page, id, [{ pick: 'user_id', where: { user_id: 'user_id', contact_id: 'event_data' } }]);
    await follows(page, email, [
      { pick: 'user_email', where: { user_email: 'user.email' } },
      { pick: NONE, where: { user_email: 'event_data' } },
    ]);
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
    // The nested batch is offered as the rows, ticked; read whole, the body is one row under its envelope's id.
    const each = page.getByLabel('Each item of "data.events" is one event');
    assert.equal(await each.isChecked(), true);
    await each.uncheck();
    await page.getByText(/Read as JSON, with a header row: 1 row/).waitFor();
    const q: Asked = {
      about: 'event_id',
      ask: /^Is id the event's own id\? The payload carries its events in data\.events/,
      options: ['id'],
      guessed: 'id',
      where: { id: 'event_id' },
    };
    await shows(page, q);
    await follows(page, q, [
      { shot: 'creator-question-batch.png' },
      { pick: NONE, where: { id: 'event_data' }, unkeyed: ['id'] },
    ]);
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
