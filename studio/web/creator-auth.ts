/**
 * The creator's "How the sender proves itself" (docs/studio.md, step 4; docs/senders.md): a
 * project token (Bearer), HTTP Basic, a token in the URL, or a signature of the body under a
 * scheme the product knows. The signature's options are read from the Translator schema itself
 * (schemas/translator.ts's TranslatorSignature): every scheme, and every option of the generic
 * `hmac` form the gateway takes, without a list here to fall behind. What is chosen becomes the
 * translator's `spec.auth`, the URL to paste into the vendor's settings, and the signed test,
 * which the studio signs (the browser holds no HMAC: studio/creator-signing.ts). The secret's
 * value is never saved by the page: it names a Secret Manager secret and says how to store it.
 */

import type { SchemeOffer } from '../../core/samples/sender-scheme.ts';
import { CERTIFICATE_SCHEMES, signatureHeader } from '../../core/translate/signature-header.ts';
import {
  createCommand,
  grantCommand,
  isTranslatorSecret,
  TRANSLATOR_SECRET_PREFIX,
  translatorSecretName,
} from '../../core/translate/translator-secrets.ts';
import { type TranslatorAuth, TranslatorSignature } from '../../schemas/translator.ts';
import type { SignatureScheme } from '../../schemas/translator-signature.ts';
import { $, el } from './common.ts';

export type AuthKind = 'token' | 'basic' | 'url_token' | 'signature';

interface OptionSchema {
  readonly type?: string;
  readonly items?: OptionSchema;
  readonly anyOf?: readonly { readonly const?: unknown }[];
  readonly description?: string;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

const PROPERTIES = (TranslatorSignature as unknown as { properties: Record<string, OptionSchema> })
  .properties;
/** The schemes the gateway checks, as the schema lists them. */
export const SCHEMES: readonly string[] = (PROPERTIES['scheme']?.anyOf ?? [])
  .map((o) => o.const)
  .filter((c): c is string => typeof c === 'string');
/** The options beside the scheme and the secret names, each as its own control. */
const OPTIONS = Object.entries(PROPERTIES).filter(([k]) => k !== 'scheme' && k !== 'secrets');
/** The scheme an option belongs to when the schema says so (`hmac` only: …, `sns` only, …). */
const schemeOnly = (o: OptionSchema) => /^`([a-z0-9_]+)` (only|with)\b/.exec(o.description ?? '')?.[1];

/** Whether a scheme checks an HMAC under a shared secret (not a vendor's certificate, as `sns`, `paypal`). */
const sharedSecret = (scheme: string) => !CERTIFICATE_SCHEMES.has(scheme as SignatureScheme);

/** Whether the chosen signature is one the studio can sign (a shared secret's). */
export const signable = (): boolean =>
  authKind() === 'signature' && sharedSecret($<HTMLSelectElement>('sig-scheme').value);

export const authKind = (): AuthKind => $<HTMLSelectElement>('auth-kind').value as AuthKind;

/** The Secret Manager name of a translator's signing secret, as the source catalogue names them. */
export const defaultSecretName = translatorSecretName;

let secretEdited = false;
/** Whether the person chose the kind or scheme (then an offer from the sample no longer changes them). */
let authChosen = false;

/**
 * The scheme the sample's shape names (core/samples/sender-scheme.ts), chosen for the person
 * unless they chose already, with why; no offer clears the note and changes nothing.
 */
export function offerScheme(offer: SchemeOffer | undefined): void {
  const note = $('auth-offer');
  note.textContent = offer ? `Offered from the sample: ${offer.why}.` : '';
  note.hidden = !offer;
  if (!offer || authChosen || !SCHEMES.includes(offer.scheme)) return;
  $<HTMLSelectElement>('auth-kind').value = 'signature';
  $<HTMLSelectElement>('sig-scheme').value = offer.scheme;
}

/** An example or the default from the option's description (`(X-Signature)`, `(default 300; …)`), else "optional". */
function placeholderOf(o: OptionSchema): string {
  const inParens = /\(([^)]+)\)/.exec(o.description ?? '')?.[1] ?? '';
  return /^default\b/.test(inParens) || /^\S+$/.test(inParens) ? inParens : 'optional';
}

/** The controls: the kinds, the schemes and each option of the schema. */
export function startAuth(changed: () => void): void {
  $('sig-scheme').replaceChildren(...SCHEMES.map((s) => el('option', { value: s }, s)));
  $<HTMLSelectElement>('sig-scheme').value = SCHEMES.includes('hmac') ? 'hmac' : (SCHEMES[0] ?? '');
  const box = $('sig-options');
  for (const [key, o] of OPTIONS) {
    const id = `sig-${key}`;
    const label = el('label', { for: id, title: o.description ?? '' }, key.replace(/_/g, ' '));
    let input: HTMLInputElement | HTMLSelectElement;
    if (o.anyOf) {
      input = el('select', { id });
      input.append(el('option', { value: '' }, 'default'));
      for (const c of o.anyOf)
        if (c.const !== undefined) input.append(el('option', { value: String(c.const) }, String(c.const)));
    } else if (o.type === 'boolean') {
      input = el('select', { id });
      for (const v of ['', 'true', 'false']) input.append(el('option', { value: v }, v || 'default'));
    } else {
      input = el('input', {
        id,
        type: o.type === 'integer' ? 'number' : 'text',
        ...(o.type === 'array' ? { 'aria-description': 'several: separated by spaces or commas' } : {}),
        spellcheck: 'false',
        class: 'code',
        placeholder: placeholderOf(o),
        ...(o.minimum !== undefined ? { min: String(o.minimum) } : {}),
        ...(o.maximum !== undefined ? { max: String(o.maximum) } : {}),
      });
    }
    const pair = el('span', { class: 'pair', 'data-option': key }, label, input);
    const only = schemeOnly(o);
    if (only) pair.dataset['scheme'] = only;
    input.addEventListener('change', changed);
    box.append(pair);
  }
  $('sig-secret-name').addEventListener('input', () => {
    secretEdited = true;
    changed();
  });
  for (const id of ['auth-kind', 'sig-scheme'])
    $(id).addEventListener('change', () => {
      authChosen = true;
      changed();
    });
}

/** Shows the controls the kind and scheme need; fills the secret's name from the translator's. */
export function renderAuth(translator: string): void {
  const kind = authKind();
  $('auth-signature').hidden = kind !== 'signature';
  const scheme = $<HTMLSelectElement>('sig-scheme').value;
  for (const pair of $('sig-options').querySelectorAll<HTMLElement>('[data-option]'))
    pair.hidden = pair.dataset['scheme'] !== undefined && pair.dataset['scheme'] !== scheme;
  const shared = sharedSecret(scheme);
  $('sig-secret-row').hidden = !shared;
  const name = $<HTMLInputElement>('sig-secret-name');
  if (!secretEdited) name.value = defaultSecretName(translator);
  $('sig-secret-step').textContent =
    kind === 'signature' && !shared
      ? `${scheme} deliveries are signed with the vendor's own certificate, which the gateway fetches: there is no secret to store, and the studio cannot sign a test of it.`
      : kind === 'signature'
        ? secretStep(name.value.trim())
        : '';
}

/**
 * Where the signing secret goes, and who may read it: the gateway reads secrets named
 * eventbus-translator-… from the first `pulumi up` (core/translate/translator-secrets.ts); any other
 * name needs its own grant, which `eventbus apply` also checks and prints.
 */
function secretStep(secret: string): string {
  const store = `The gateway reads the signing secret by name, never from the translator: before the vendor sends, store its value as the secret ${secret}. On Google Cloud: ${createCommand('PROJECT', secret)} (paste it, then Ctrl-D). With npm start: npm run cli -- local secret ${secret} (the value on standard input) stores it in the local Secret Manager emulator.`;
  const read = isTranslatorSecret(secret)
    ? ` Its name starts with ${TRANSLATOR_SECRET_PREFIX}, so the gateway may read it: pulumi up grants the gateway every secret so named.`
    : ` Its name does not start with ${TRANSLATOR_SECRET_PREFIX}, so the gateway may not read it until granted: ${grantCommand('PROJECT', secret, 'serviceAccount:eventbus-gateway@PROJECT.iam.gserviceaccount.com')}.`;
  return `${store}${read} The value typed here only signs the test below; it is not saved.`;
}

/** The signature as the translator's spec says it (options left at their default are left out). */
export function signatureSpec(): Record<string, unknown> {
  const scheme = $<HTMLSelectElement>('sig-scheme').value;
  const out: Record<string, unknown> = { scheme };
  if (sharedSecret(scheme)) out['secrets'] = [$<HTMLInputElement>('sig-secret-name').value.trim()];
  for (const [key, o] of OPTIONS) {
    const only = schemeOnly(o);
    if (only && only !== scheme) continue;
    const v = $<HTMLInputElement>(`sig-${key}`).value.trim();
    if (v === '') continue;
    out[key] =
      o.type === 'integer'
        ? Number(v)
        : o.type === 'boolean'
          ? v === 'true'
          : o.type === 'array'
            ? v.split(/[\s,]+/).filter((x) => x !== '')
            : v;
  }
  return out;
}

/** The translator's `spec.auth` for the choice; undefined for a token (Bearer or Basic: every path takes both). */
export function authSpec(): TranslatorAuth | undefined {
  const kind = authKind();
  if (kind === 'url_token') return { url_token: true };
  if (kind === 'signature') return { signature: signatureSpec() as TranslatorAuth['signature'] & object };
  return undefined;
}

/** What keeps the choice from being saved, or undefined. */
export function authProblem(): string | undefined {
  if (!signable()) return undefined;
  const name = $<HTMLInputElement>('sig-secret-name').value.trim();
  if (!/^[A-Za-z0-9_-]{1,255}$/.test(name))
    return 'Name the signing secret (letters, digits, _ and -): the gateway reads it from Secret Manager by that name.';
  return undefined;
}

/** The URL to paste into the sender's settings: the token in it only for a URL token. */
export function endpointUrl(gateway: string, translator: string, token?: string): string {
  const base = `${gateway.replace(/\/+$/, '')}/v1/translators/${translator}`;
  return authKind() === 'url_token' ? `${base}?key=${token ?? 'YOUR_TOKEN'}` : base;
}

/** A curl of the same request, with the credential the choice takes. */
export function curlFor(url: string, contentType: string): string {
  const kind = authKind();
  const auth =
    kind === 'token'
      ? '-H "Authorization: Bearer $TOKEN" '
      : kind === 'basic'
        ? '-u "$TOKEN:" '
        : signable()
          ? `-H "${signatureHeader(signatureSpec() as unknown as Parameters<typeof signatureHeader>[0])}: <the signature the vendor computes>" `
          : '';
  return `curl -sS -X POST '${url}' \\\n  ${auth}-H 'Content-Type: ${contentType}' \\\n  --data-binary @your-file`;
}

/** What the person does at the sender, beside the URL. */
export function senderHint(): string {
  switch (authKind()) {
    case 'basic':
      return 'The sender sends a token of this endpoint as HTTP Basic’s user name, with an empty password (create one below).';
    case 'url_token':
      return 'The URL carries a token scoped to this endpoint alone: create one below and the URL above shows it.';
    case 'signature':
      return 'Paste the URL into the vendor’s webhook settings and give it the same signing secret; each delivery is checked against it (a wrong or missing signature is refused with 401).';
    default:
      return 'Your code sends a token of this endpoint as Authorization: Bearer (create one below).';
  }
}
