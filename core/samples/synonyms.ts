/**
 * The column names the creator recognises, per target, in English, German, French and Spanish
 * (some Italian and Dutch). Names are written as suggest.ts compares them: lowercase ASCII
 * without accents or separators (`E-Mail-Adresse` → `emailadresse`, `Währung` → `wahrung`).
 */

/** The context fields a column can be mapped to (schemas/context.ts). */
export const CONTEXT_TARGETS = [
  'event_name',
  'event_id',
  'event_time',
  'user_id',
  'anonymous_id',
  'session_id',
  'user.email',
  'user.phone',
  'user.first_name',
  'user.last_name',
  'user.date_of_birth',
  'user.gender',
  'user.city',
  'user.region',
  'user.postal_code',
  'user.country',
  'user.external_id',
  'page.url',
  'page.referrer',
  'page.title',
  'device.ip',
  'device.user_agent',
  'device.locale',
  'campaign.source',
  'campaign.medium',
  'campaign.name',
  'campaign.term',
  'campaign.content',
  'campaign.gclid',
  'campaign.fbclid',
  'campaign.ttclid',
  'campaign.fbc',
  'campaign.fbp',
  'consent.analytics',
  'consent.ads',
  'consent.ad_user_data',
  'consent.ad_personalization',
] as const;
export type ContextTarget = (typeof CONTEXT_TARGETS)[number];

/** Catalogue event data fields a column is recognised as (schemas/events/). */
export const DATA_FIELDS = ['value', 'currency', 'transaction_id', 'coupon', 'search_term'] as const;
export type DataField = (typeof DATA_FIELDS)[number];

/**
 * What a target holds, as inferred kinds (a format, else a type): `good` values confirm a name,
 * `ok` ones neither confirm nor contradict it; any other kind contradicts it.
 */
export interface TargetRule {
  readonly names: string;
  readonly good?: readonly string[];
  readonly ok: readonly string[];
}

const ID = ['string', 'integer', 'uuid'];
const TEXT = ['string'];

export const TARGET_RULES: Readonly<Record<ContextTarget | DataField, TargetRule>> = {
  event_name: { names: 'eventname eventtype ereignis ereignisname evenement nombreevento', ok: TEXT },
  event_id: { names: 'eventid messageid dedupid dedupeid deduplicationid idempotencykey ereignisid', ok: ID },
  event_time: {
    names: `timestamp time datetime date eventtime eventdate eventtimestamp createdat created createdon
      createddate creationdate occurredat occurred ts zeitstempel zeitpunkt datum zeit uhrzeit erstelltam
      erstellt erstellungsdatum bestelldatum kaufdatum orderdate purchasedate transactiondate horodatage
      dateheure datedecreation datecommande fecha fechahora hora marcadetiempo fechadecreacion fechapedido
      dataora tijdstip datumtijd`,
    good: ['timestamp', 'date'],
    ok: ['string', 'integer'],
  },
  user_id: {
    names: 'userid uid benutzerid nutzerid memberid loginid idutilisateur utilisateurid idusuario usuarioid',
    ok: ID,
  },
  anonymous_id: {
    names: 'anonymousid anonid visitorid deviceid cookieid clientid besucherid idvisiteur idvisitante',
    ok: ID,
  },
  session_id: { names: 'sessionid sitzungsid sitzung idsession iddesesion sesionid', ok: ID },
  'user.email': {
    names: `email mail emailaddress mailaddress emailadresse mailadresse emailadr courriel adresseemail
      adressemail adressecourriel correo correoelectronico emailaddr eposta posta postaelettronica`,
    good: ['email'],
    ok: TEXT,
  },
  'user.phone': {
    names: `phone phonenumber phoneno telephone tel telno telefon telefonnummer telnr handy handynummer mobil
      mobile mobilnummer mobilephone mobiltelefon cell cellphone portable numerodetelephone numerotelephone
      telefono numerodetelefono movil celular telefonomovil cellulare telefone`,
    good: ['phone'],
    ok: ['string', 'integer'],
  },
  'user.first_name': {
    names: 'firstname givenname forename fname vorname rufname prenom nombre nombrepila nome voornaam',
    ok: TEXT,
  },
  'user.last_name': {
    names:
      'lastname surname familyname lname nachname familienname zuname nom nomdefamille apellido apellidos cognome achternaam',
    ok: TEXT,
  },
  'user.date_of_birth': {
    names: `dateofbirth dob birthdate birthday geburtsdatum geburtstag gebdatum datedenaissance naissance
      fechadenacimiento nacimiento datadinascita geboortedatum`,
    good: ['date'],
    ok: TEXT,
  },
  'user.gender': { names: 'gender sex geschlecht genre sexe genero sexo sesso geslacht', ok: TEXT },
  'user.city': {
    names: 'city town stadt ort wohnort ville ciudad localidad poblacion citta plaats',
    ok: TEXT,
  },
  'user.region': {
    names:
      'region state province county bundesland provinz etat departement provincia estado regione provincie',
    ok: TEXT,
  },
  'user.postal_code': {
    names: 'zip zipcode postalcode postcode plz postleitzahl codepostal cp codigopostal',
    ok: ['string', 'integer'],
  },
  'user.country': {
    names: 'country countrycode land landcode staat pays codepays pais codigopais nazione paese',
    good: ['country'],
    ok: TEXT,
  },
  'user.external_id': {
    names: `externalid customer customerid customerno customernumber custid clientnumber kundennummer kundenid kundennr
      kdnr kundenkennung idclient numeroclient idcliente clienteid numerodecliente numcliente
      codigocliente codicecliente klantnummer`,
    ok: ID,
  },
  'page.url': {
    names:
      'url pageurl pagelocation landingpage seite seitenurl seitenadresse urldelapage pagina urldepagina',
    good: ['url'],
    ok: TEXT,
  },
  'page.referrer': {
    names: 'referrer referer referrerurl herkunft verweis referent referente',
    good: ['url'],
    ok: TEXT,
  },
  'page.title': { names: 'pagetitle seitentitel titredelapage titulodepagina titolopagina', ok: TEXT },
  'device.ip': { names: 'ip ipaddress ipadresse clientip adresseip direccionip indirizzoip', ok: TEXT },
  'device.user_agent': { names: 'useragent ua browseragent navigateur', ok: TEXT },
  'device.locale': { names: 'locale language lang sprache langue idioma lingua taal', ok: TEXT },
  'campaign.source': { names: 'utmsource campaignsource quelle', ok: TEXT },
  'campaign.medium': { names: 'utmmedium campaignmedium medium', ok: TEXT },
  'campaign.name': { names: 'utmcampaign campaign campaignname kampagne campagne campana', ok: TEXT },
  'campaign.term': { names: 'utmterm campaignterm keyword', ok: TEXT },
  'campaign.content': { names: 'utmcontent campaigncontent', ok: TEXT },
  'campaign.gclid': { names: 'gclid googleclickid', ok: TEXT },
  'campaign.fbclid': { names: 'fbclid', ok: TEXT },
  'campaign.ttclid': { names: 'ttclid', ok: TEXT },
  'campaign.fbc': { names: 'fbc', ok: TEXT },
  'campaign.fbp': { names: 'fbp', ok: TEXT },
  'consent.analytics': {
    names: 'consentanalytics analyticsconsent analyticsstorage statisticsconsent',
    ok: ['string', 'boolean'],
  },
  'consent.ads': {
    names: 'consentads adsconsent marketingconsent adstorage werbeeinwilligung consentmarketing',
    ok: ['string', 'boolean'],
  },
  'consent.ad_user_data': { names: 'aduserdata consentaduserdata', ok: ['string', 'boolean'] },
  'consent.ad_personalization': {
    names: 'adpersonalization consentadpersonalization',
    ok: ['string', 'boolean'],
  },
  value: {
    names: `value amount total revenue ordervalue ordertotal grandtotal sum betrag summe gesamtbetrag gesamtsumme
      umsatz bestellwert wert montant montanttotal valeur importe monto valor totale importo bedrag`,
    good: ['number', 'integer'],
    ok: [],
  },
  currency: {
    names: 'currency currencycode curr wahrung waehrung devise monnaie moneda divisa valuta',
    good: ['currency'],
    ok: TEXT,
  },
  transaction_id: {
    names: `transactionid orderid ordernumber orderno order invoicenumber invoiceid bestellnummer bestellid
      bestellung auftragsnummer auftragsnr rechnungsnummer numerodecommande commande idcommande numerocommande
      numerodepedido pedido idpedido numeropedido numerodeorden numeroordine`,
    ok: ID,
  },
  coupon: {
    names:
      'coupon couponcode voucher vouchercode promocode discountcode gutschein gutscheincode rabattcode codepromo cupon codigopromocional',
    ok: TEXT,
  },
  search_term: {
    names:
      'searchterm searchquery query search suchbegriff suche recherche termederecherche busqueda terminodebusqueda',
    ok: TEXT,
  },
};
