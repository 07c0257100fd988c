/**
 * The sample's headers on the creator's page (docs/studio.md, step 1): a pasted body carries no
 * headers, yet many vendors say which event it is in one (Shopify's `X-Shopify-Topic`, GitHub's
 * `X-GitHub-Event`). The person may give them, as `Name: value` lines or as the `-H` options of a
 * curl command; the page then offers a header as the event type's discriminator (the translator's
 * `header:<Name>` source, docs/translators.md "Header sources"), and the row check reads the
 * headers as the gateway will. Headers that carry a credential or a signature are never offered,
 * and none is saved: only the header's name goes into the translator. Parsing is pure; the rest
 * is browser-only (the page's elements).
 */
import type { ParsedSample } from '../../core/samples/sample.ts';
import type { RequestHeaders } from '../../core/translate/headers.ts';
import { $, el } from './common.ts';
import { offerTypes as offerBodyTypes } from './creator-types.ts';

/** One header as given: its name as written, and its value. */
export interface GivenHeader {
  readonly name: string;
  readonly value: string;
}

/** An HTTP header name: RFC 9110's token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A curl header option and its argument: `-H 'A: b'`, `--header "A: b"`, `-H A:b`. */
const CURL_HEADER = /(?:^|\s)(?:-H|--header)\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+))/g;
/** Headers that prove the sender or carry a secret: never a discriminator, never kept. */
const SECRET =
  /^(authorization|proxy-authorization|cookie|x-api-key|x-goog-api-key|x-write-key)$|signature|hmac/i;
/** HTTP's own headers, and a delivery's ids and times: none says which event it is. */
const NOT_TYPE =
  /^(content-|accept|user-agent$|host$|connection$|date$|cache-control$|x-forwarded-|x-real-ip$)|(-id|-uuid|-timestamp|-time|-date|-length)$/i;
/** Names a vendor gives the header that says which event it is. */
const TOPIC = /(^|-)(topic|event|event-type|event-name|event-key|webhook-topic|webhook-event|hook-event)$/i;

/**
 * The headers given, from `Name: value` lines or a curl command's `-H`/`--header` options, with
 * a problem for each line that is neither (its 1-based line). Blank lines are ignored.
 */
export function readHeaders(text: string): { headers: GivenHeader[]; problems: string[] } {
  const headers: GivenHeader[] = [];
  const problems: string[] = [];
  const add = (raw: string, where: string) => {
    const colon = raw.indexOf(':');
    const name = colon > 0 ? raw.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) {
      problems.push(`${where}: "${raw.trim().slice(0, 60)}" is not a header (Name: value)`);
      return;
    }
    headers.push({ name, value: raw.slice(colon + 1).trim() });
  };
  if (/(^|\s)curl\s/.test(text) || /(^|\s)(-H|--header)\s/.test(text)) {
    for (const m of text.replace(/\\\r?\n/g, ' ').matchAll(CURL_HEADER))
      add((m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3] ?? '').trim(), `curl option ${headers.length + 1}`);
    return { headers, problems };
  }
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() !== '') add(line, `line ${i + 1}`);
  });
  return { headers, problems };
}

/** The given headers a translator may read, by lower-case name (the first of a repeated one). */
export function readableHeaders(headers: readonly GivenHeader[]): RequestHeaders {
  const out: Record<string, string> = {};
  for (const h of headers) {
    const name = h.name.toLowerCase();
    if (!SECRET.test(name) && !(name in out)) out[name] = h.value;
  }
  return out;
}

/**
 * The headers that may tell the event type: a value of one token (`orders/create`, `push`), no
 * credential or signature, none of HTTP's own nor a delivery's id or time; a topic-named one
 * first (`X-Shopify-Topic`, `X-GitHub-Event`).
 */
export function typeHeaders(headers: readonly GivenHeader[]): GivenHeader[] {
  const fit = headers.filter(
    (h) => !SECRET.test(h.name) && !NOT_TYPE.test(h.name) && /^\S{1,200}$/.test(h.value),
  );
  return [...fit.filter((h) => TOPIC.test(h.name)), ...fit.filter((h) => !TOPIC.test(h.name))];
}

/** The headers the person gave, as the page's row check reads them. */
export function sampleHeaders(): RequestHeaders {
  return readableHeaders(readHeaders($<HTMLTextAreaElement>('sample-headers').value).headers);
}

/**
 * Reads the headers box: names the lines it cannot read, and fills the choice of the header that
 * tells the event type (kept when it is still given; else a topic-named one, else none).
 */
function showHeaders(): GivenHeader | undefined {
  const { headers, problems } = readHeaders($<HTMLTextAreaElement>('sample-headers').value);
  $('header-problems').replaceChildren(...problems.slice(0, 5).map((p) => el('li', {}, p)));
  const offered = typeHeaders(headers);
  const select = $<HTMLSelectElement>('type-header');
  const before = select.value;
  select.replaceChildren(
    el('option', { value: '' }, 'none: the body alone says it'),
    ...offered.map((h) => el('option', { value: h.name }, `${h.name} (${h.value})`)),
  );
  const keep = offered.find((h) => h.name === before);
  const topic = offered.find((h) => TOPIC.test(h.name));
  select.value = keep?.name ?? (before === '' && select.dataset.chosen === 'none' ? '' : (topic?.name ?? ''));
  $('type-header-row').hidden = offered.length === 0;
  return offered.find((h) => h.name === select.value);
}

let listening = false;

/** Changing the headers, or the header chosen, reads the sample again; a "none" chosen stays chosen. */
function listen(): void {
  if (listening) return;
  listening = true;
  const select = $<HTMLSelectElement>('type-header');
  select.addEventListener('change', () => {
    select.dataset.chosen = select.value === '' ? 'none' : select.value;
    $('read').click();
  });
  $('sample-headers').addEventListener('change', () => $('read').click());
}

/**
 * The sample's types, by a body discriminator (creator-types.ts) or by the header the person
 * chose: then every row is of that header's one type (`header:X-Shopify-Topic` = `orders/create`),
 * and the saved translator names the event from the header through a lookup.
 */
export function offerTypes(sample: ParsedSample, allowed: boolean, lastOffer: string | undefined) {
  listen();
  const header = showHeaders();
  if (!allowed || !header) return offerBodyTypes(sample, allowed, lastOffer);
  const discriminator = `header:${header.name}`;
  const box = $<HTMLInputElement>('multi');
  $('multi-type').hidden = false;
  if (discriminator !== lastOffer) box.checked = true;
  $('multi-discriminator').textContent = discriminator;
  $('multi-count').textContent = '1 type';
  $('multi-pick').hidden = !box.checked;
  const groups = new Map([[header.value, sample]]);
  return { offer: discriminator, groups: box.checked ? groups : undefined };
}
