/** core/samples/suggest.ts: which context field (or event data field) each sample column maps to. */
import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import { inferFields } from '../../../core/samples/infer.ts';
import { parseSample } from '../../../core/samples/parse.ts';
import { CONTEXT_TARGETS, suggestMappings } from '../../../core/samples/suggest.ts';
import { TARGET_RULES } from '../../../core/samples/synonyms.ts';
import { Context } from '../../../schemas/context.ts';

const target = (name: string) => {
  const [s] = suggestMappings([name]);
  return s?.target === 'event_data' ? `event_data ${s.field}` : s?.target;
};

describe('samples: suggesting mappings', () => {
  it('suggests only context fields that exist in schemas/context.ts', () => {
    const props = (s: unknown) => (s as { properties?: Record<string, TSchema> }).properties ?? {};
    const missing = CONTEXT_TARGETS.filter((t) => {
      const [top, sub] = t.split('.') as [string, string | undefined];
      const field = props(Context)[top];
      return !field || (sub !== undefined && !props(field)[sub]);
    });
    assert.deepEqual(missing, []);
  });

  it('lists each known name under one target only', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [t, rule] of Object.entries(TARGET_RULES))
      for (const n of rule.names.trim().split(/\s+/)) {
        if (seen.has(n)) twice.push(`${n}: ${seen.get(n)} and ${t}`);
        seen.set(n, t);
      }
    assert.deepEqual(twice, []);
  });

  const names: [string, string][] = [
    ['E-Mail', 'user.email'],
    ['email_address', 'user.email'],
    ['Mail', 'user.email'],
    ['eMail', 'user.email'],
    ['E-Mail-Adresse', 'user.email'],
    ['Courriel', 'user.email'],
    ['correo electrónico', 'user.email'],
    ['Telefon', 'user.phone'],
    ['Handy', 'user.phone'],
    ['phone_number', 'user.phone'],
    ['Téléphone', 'user.phone'],
    ['Teléfono', 'user.phone'],
    ['Datum', 'event_time'],
    ['Zeitstempel', 'event_time'],
    ['date', 'event_time'],
    ['created_at', 'event_time'],
    ['createdAt', 'event_time'],
    ['timestamp', 'event_time'],
    ['Fecha', 'event_time'],
    ['Horodatage', 'event_time'],
    ['Vorname', 'user.first_name'],
    ['Nachname', 'user.last_name'],
    ['first name', 'user.first_name'],
    ['Prénom', 'user.first_name'],
    ['Apellidos', 'user.last_name'],
    ['Geburtsdatum', 'user.date_of_birth'],
    ['PLZ', 'user.postal_code'],
    ['zip', 'user.postal_code'],
    ['Code postal', 'user.postal_code'],
    ['Land', 'user.country'],
    ['country', 'user.country'],
    ['País', 'user.country'],
    ['Stadt', 'user.city'],
    ['city', 'user.city'],
    ['Ville', 'user.city'],
    ['customer_id', 'user.external_id'],
    ['Kundennummer', 'user.external_id'],
    ['Kunden-Nr.', 'user.external_id'],
    ['user_id', 'user_id'],
    ['page_url', 'page.url'],
    ['utm_source', 'campaign.source'],
    ['gclid', 'campaign.gclid'],
    ['IP-Adresse', 'device.ip'],
    ['order_id', 'event_data transaction_id'],
    ['Bestellnummer', 'event_data transaction_id'],
    ['Betrag', 'event_data value'],
    ['amount', 'event_data value'],
    ['value', 'event_data value'],
    ['Montant', 'event_data value'],
    ['Währung', 'event_data currency'],
    ['Waehrung', 'event_data currency'],
    ['currency', 'event_data currency'],
    ['Moneda', 'event_data currency'],
    ['Gutscheincode', 'event_data coupon'],
    ['billing_email', 'user.email'],
    ['Lieblingsfarbe', 'event_data lieblingsfarbe'],
    ['Notiz (intern)', 'event_data notiz_intern'],
  ];
  for (const [name, expected] of names)
    it(`"${name}" → ${expected}`, () => assert.equal(target(name), expected));

  it('is more confident about a whole-name match than a word in the name', () => {
    const [whole, part] = suggestMappings(['email', 'billing_city']);
    assert.equal(whole?.confidence, 0.9);
    assert.equal(part?.target, 'user.city');
    assert.equal(part?.confidence, 0.6);
  });

  it('maps a column of e-mail addresses to user.email whatever its name', () => {
    const [s] = suggestMappings([{ name: 'contact', type: 'string', format: 'email' }]);
    assert.equal(s?.target, 'user.email');
    assert.match(s?.reason ?? '', /values are email/);
  });

  it('lets the values confirm or contradict a name', () => {
    const [confirmed] = suggestMappings([{ name: 'Mail', type: 'string', format: 'email' }]);
    assert.equal(confirmed?.confidence, 0.98);
    const [optIn] = suggestMappings([{ name: 'email_opt_in', type: 'boolean' }]);
    assert.equal(optIn?.target, 'event_data');
    assert.equal(optIn?.field, 'email_opt_in');
    const [amount] = suggestMappings([{ name: 'Betrag', type: 'string' }]);
    assert.equal(amount?.target, 'event_data');
    assert.equal(amount?.field, 'betrag');
  });

  it('gives each target to one column, the most confident, and keeps the others as event data', () => {
    const s = suggestMappings([
      'Mail',
      { name: 'E-Mail', type: 'string', format: 'email' },
      'delivery_date',
      'created_at',
      'Betrag',
      'value',
    ]);
    assert.deepEqual(
      s.map((x) => [x.column, x.target, x.field]),
      [
        ['Mail', 'event_data', 'mail'],
        ['E-Mail', 'user.email', undefined],
        ['delivery_date', 'event_data', 'delivery_date'],
        ['created_at', 'event_time', undefined],
        ['Betrag', 'event_data', 'value'],
        ['value', 'event_data', 'value_2'],
      ],
    );
    assert.equal(s[0]?.reason, 'user.email ("Mail" names user.email) went to E-Mail');
  });

  it('maps a parsed, inferred German export end to end', () => {
    const p = parseSample(
      'Kontakt;Vorname;Nachname;Handy;PLZ;Datum;Betrag;Währung\n' +
        'anna@example.de;Anna;Schmidt;+49 170 1234567;01067;01.03.2024;12,50;EUR\n' +
        'ben@example.de;Ben;Meyer;0170 7654321;80331;02.03.2024;3,00;EUR\n',
    );
    assert.deepEqual(
      suggestMappings(inferFields(p)).map((s) => (s.target === 'event_data' ? s.field : s.target)),
      [
        'user.email',
        'user.first_name',
        'user.last_name',
        'user.phone',
        'user.postal_code',
        'event_time',
        'value',
        'currency',
      ],
    );
  });
});
