/**
 * The source catalogue (docs/sources/README.md): ready translators for the tools a business
 * already runs (Stripe, Shopify, HubSpot, …), one `sources/<name>.yaml` each. A source is a
 * translator spec plus what a person needs to connect the vendor: how it proves itself, the
 * secret's name, what to paste in the vendor's dashboard, and where a GA4 client id comes from.
 * `sourceTranslator` turns one into the Translator resource `eventbus source add` applies, with
 * the consent the business grants (none unless it says so: destinations then skip the events,
 * which are stored all the same). Pure: the files are read by the caller.
 */
import type { ConsentPurpose } from '../../schemas/settings.ts';
import { CONSENT_PURPOSES } from '../samples/draft.ts';
import { translatorViolations } from './spec.ts';
import { translatorSecretName } from './translator-secrets.ts';

/** How a source's sender proves itself (docs/senders.md). */
export type SourceAuth = 'signature' | 'url_token' | 'token';

/** One entry of the catalogue, as `sources/<name>.yaml` holds it (its spec resolved). */
export interface Source {
  readonly name: string;
  readonly title: string;
  readonly auth: SourceAuth;
  /** The Secret Manager name of the vendor's signing secret (`signature` sources). */
  readonly secret?: string;
  /** What to paste in the vendor's dashboard; `{url}` and `{gateway}` are filled in. */
  readonly connect: string;
  /** Where the vendor's payload can carry a GA4 client id, or why it cannot. */
  readonly ga4_client_id: string;
  readonly description: string;
  /** The translator spec (schemas/translator.ts). */
  readonly spec: Readonly<Record<string, unknown>>;
}

/** What `source add` is told. */
export interface SourceOptions {
  /** The translator's name; the source's own by default. */
  readonly name?: string;
  /** Purposes granted to every event the payload does not say otherwise of. Default: none. */
  readonly consent?: readonly ConsentPurpose[];
}

/** A Translator resource, as `eventbus apply` takes it. */
export interface TranslatorResource {
  readonly kind: 'Translator';
  readonly name: string;
  readonly description: string;
  readonly spec: Record<string, unknown>;
}

/** `--consent ads,analytics` read; `none` (or empty) grants nothing. A typo is an error, never ignored. */
export function parseConsent(
  text: string,
): { ok: true; purposes: ConsentPurpose[] } | { ok: false; error: string } {
  const words = text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '' && w !== 'none');
  const unknown = words.filter((w) => !(CONSENT_PURPOSES as readonly string[]).includes(w));
  if (unknown.length > 0)
    return {
      ok: false,
      error: `unknown consent purpose ${unknown.map((u) => JSON.stringify(u)).join(', ')}: expected ${CONSENT_PURPOSES.join(', ')} or none`,
    };
  return { ok: true, purposes: [...new Set(words)] as ConsentPurpose[] };
}

/** The Secret Manager name of a translator's signing secret: the source's, or derived from a new name. */
export function secretName(source: Source, name: string): string | undefined {
  if (source.auth !== 'signature') return undefined;
  if (name === source.name && source.secret) return source.secret;
  return translatorSecretName(name);
}

type Field = Record<string, unknown> & { target?: unknown };

/**
 * The Translator resource of a source: its spec, its signing secret under the translator's
 * secret name, and the consent granted. A purpose the payload maps itself (GA4's
 * `consent.ad_user_data`) keeps the payload's value and takes the grant as its default; the others
 * become constants. Without a grant nothing is added: consent stays absent, which every platform
 * reads as not granted.
 */
export function sourceTranslator(source: Source, options: SourceOptions = {}): TranslatorResource {
  const name = options.name ?? source.name;
  const spec = structuredClone(source.spec) as Record<string, unknown>;
  const fields = [...((spec['fields'] as Field[] | undefined) ?? [])];
  for (const purpose of options.consent ?? []) {
    const target = `consent.${purpose}`;
    const mapped = fields.findIndex((f) => f.target === target);
    if (mapped >= 0) fields[mapped] = { ...fields[mapped], default: 'granted' };
    else fields.push({ target, value: 'granted' });
  }
  spec['fields'] = fields;
  const secret = secretName(source, name);
  const auth = spec['auth'] as { signature?: Record<string, unknown> } | undefined;
  if (secret && auth?.signature)
    spec['auth'] = { ...auth, signature: { ...auth.signature, secrets: [secret] } };
  return { kind: 'Translator', name, description: source.description, spec };
}

/** Problems of a catalogue entry (a test runs it on every file): its fields and its spec. */
export function sourceViolations(source: Source): string[] {
  const out: string[] = [];
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(source.name))
    out.push(`name ${JSON.stringify(source.name)} is not a translator name`);
  for (const key of ['title', 'connect', 'ga4_client_id', 'description'] as const)
    if (typeof source[key] !== 'string' || source[key].trim() === '') out.push(`${key} is required`);
  if (!['signature', 'url_token', 'token'].includes(source.auth))
    out.push(`auth ${JSON.stringify(source.auth)} is unknown`);
  const auth = source.spec['auth'] as { signature?: unknown; url_token?: unknown } | undefined;
  if ((source.auth === 'signature') !== (auth?.signature !== undefined))
    out.push('auth: signature goes with the spec’s auth.signature, and only with it');
  if ((source.auth === 'url_token') !== (auth?.url_token === true))
    out.push('auth: url_token goes with the spec’s auth.url_token, and only with it');
  if (source.auth === 'signature' && !source.secret) out.push('secret is required with auth: signature');
  // A vendor's webhook retries by its own policy: its source says what a refusal would cost.
  if (source.auth === 'signature' && source.spec['unmappable'] === undefined)
    out.push(
      'spec.unmappable is required with auth: signature: store (the vendor retries a refusal) or refuse (it does not), citing its docs',
    );
  for (const v of translatorViolations(source.spec, 'spec')) out.push(`${v.field}: ${v.description}`);
  return out;
}

/** Where the sender posts: the translator's URL, with a placeholder for a URL token. */
export function sourceUrl(gateway: string, source: Source, name: string): string {
  const base = `${gateway.replace(/\/+$/, '')}/v1/translators/${name}`;
  return source.auth === 'url_token' ? `${base}/<token>` : base;
}

/** The source's connect text with its URL and the gateway filled in. */
export function connectText(source: Source, gateway: string, name: string): string {
  return source.connect
    .replaceAll('{url}', sourceUrl(gateway, source, name))
    .replaceAll('{gateway}', gateway.replace(/\/+$/, ''));
}
