import { $, admin, el, refusal, rowsTable } from './common.ts';
import { authKind, curlFor, endpointUrl, senderHint, signable } from './creator-auth.ts';
import type { Saved } from './creator-checks.ts';
import { sampleHeaders } from './creator-headers.ts';
import { counted } from './creator-wording.ts';

/** A saved source as the tries need it: the sample as read, and the columns the stored rows show. */
interface Live extends Saved {
  readonly fields: readonly string[];
  readonly contentType: string;
  readonly text: string;
}

const state: { live?: Live; gateway?: string; token?: string } = {};

/** Shows the saved source's URL, what to do at the sender, and the tries its credential takes. */
export function goLive(live: Live, gateway: string): void {
  state.live = live;
  state.gateway = gateway;
  delete state.token;
  showEndpoint();
  $('sender-hint').textContent = senderHint();
  // A signed source takes signed bodies only: its try is a signed sample (when the studio can sign it).
  const signed = authKind() === 'signature';
  $('token-try').hidden = signed;
  $('signed-try').hidden = !signable();
  $('live').hidden = false;
}

/** The buttons of the tries. */
export function startLive(): void {
  $('make-token').addEventListener('click', () => void makeToken());
  $('send-samples').addEventListener('click', () => void sendSamples());
  $('send-signed').addEventListener('click', () => void sendSigned(false));
  $('send-wrong').addEventListener('click', () => void sendSigned(true));
  $('copy-endpoint').addEventListener('click', () => void copyEndpoint());
}

/** The URL to paste into the sender's settings (with the token once made, for a URL token) and its curl. */
function showEndpoint(): void {
  const live = state.live;
  if (!live) return;
  const endpoint = endpointUrl(state.gateway ?? '{gateway}', live.translator.name, state.token);
  $('endpoint').textContent = endpoint;
  $('curl').textContent = curlFor(endpoint, live.contentType);
}

/** Copies the URL; where the browser refuses the clipboard, selects it for the person to copy. */
async function copyEndpoint(): Promise<void> {
  const text = $('endpoint').textContent ?? '';
  try {
    await navigator.clipboard.writeText(text);
    $('copy-status').textContent = 'Copied.';
  } catch {
    getSelection()?.selectAllChildren($('endpoint'));
    $('copy-status').textContent = 'Selected: press Ctrl+C (⌘C) to copy it.';
  }
}

/** A translate:<name> token for the saved translator, shown once. */
async function makeToken(): Promise<void> {
  const live = state.live;
  if (!live) return;
  const { status, json } = await admin('/v1/admin/tokens', { translator: live.translator.name });
  if (status !== 200) {
    $('send-status').replaceChildren(...refusal(status, json));
    return;
  }
  const made = json as { secret: string; expires_at?: string };
  state.token = made.secret;
  $('token').textContent = state.token;
  // Tokens made here expire (docs/studio.md#tokens-made-in-the-studio): say when.
  $('token-expiry').textContent =
    made.expires_at && made.expires_at !== 'never' ? `It expires on ${made.expires_at.slice(0, 10)}.` : '';
  $('token-once').hidden = false;
  $<HTMLButtonElement>('make-token').disabled = true;
  $<HTMLButtonElement>('send-samples').disabled = false;
  // A URL token's URL is whole only with the token in it.
  showEndpoint();
}

/** The gateway's answer to a post, as the studio relays it. */
interface GatewayAnswer {
  status: number;
  body: {
    messageIds?: (string | null)[];
    invalidRows?: number;
    violations?: { field: string; description: string }[];
  };
}

/** The sample through the live endpoint with the token, then what the warehouse holds as it arrives. */
async function sendSamples(): Promise<void> {
  const live = state.live;
  if (!live || !state.token) return;
  const since = new Date(Date.now() - 5_000).toISOString();
  const status = $('send-status');
  status.textContent = 'Sending…';
  const sent = await admin('/v1/admin/send', {
    translator: live.translator.name,
    token: state.token,
    contentType: live.contentType,
    text: live.text,
    headers: sampleHeaders(),
  });
  if (sent.status !== 200) status.replaceChildren(...refusal(sent.status, sent.json));
  else await followArrivals(live, sent.json as GatewayAnswer, status, since);
}

/**
 * The sample signed by the studio with the typed secret (or, to see the refusal, another one)
 * and posted as the vendor posts it; then, when accepted, what the warehouse holds.
 */
async function sendSigned(wrong: boolean): Promise<void> {
  const live = state.live;
  const signature = live?.translator.spec.auth?.signature;
  if (!live || !signature) return;
  const status = $('signed-status');
  const typed = $<HTMLInputElement>('sig-secret').value;
  if (!wrong && typed === '') {
    status.textContent = 'Type the signing secret above first (the same value the secret store holds).';
    return;
  }
  const since = new Date(Date.now() - 5_000).toISOString();
  status.textContent = 'Sending…';
  const secret = wrong ? `not-${typed}-${Math.random().toString(36).slice(2)}` : typed;
  const sent = await admin('/v1/admin/signed-send', {
    translator: live.translator.name,
    signature,
    secret,
    contentType: live.contentType,
    text: live.text,
    headers: sampleHeaders(),
  });
  if (sent.status !== 200) {
    status.replaceChildren(...refusal(sent.status, sent.json));
    return;
  }
  const answer = sent.json as GatewayAnswer & { signed?: string[] };
  const how = `Signed as ${signature.scheme} (${(answer.signed ?? []).join(', ')})${wrong ? ' with a wrong secret' : ''}: `;
  if (answer.status === 401) {
    status.replaceChildren(
      el(
        'p',
        { class: wrong ? 'ok' : 'err' },
        `${how}the gateway answered 401, the signature refused${wrong ? ', as it should be' : ': is the secret stored under its name, with this value?'}.`,
      ),
      // The gateway's own words: an error only when the right secret was refused.
      ...(wrong
        ? [el('p', { class: 'hint' }, `Its answer: ${gatewayMessage(answer.body)}`)]
        : refusal(answer.status, answer.body)),
    );
    return;
  }
  status.replaceChildren(el('p', {}, `${how}the gateway answered ${answer.status}.`));
  await followArrivals(live, answer, status, since, false);
}

/** The message of the gateway's error envelope, or its body as text. */
function gatewayMessage(body: unknown): string {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : JSON.stringify(body);
}

/** The endpoint's answer said; then the rows as they stand in the warehouse and the ledger, until settled. */
async function followArrivals(
  live: Saved,
  gateway: GatewayAnswer,
  status: HTMLElement,
  since: string,
  replace = true,
): Promise<void> {
  const say = (text: string) => {
    if (replace) status.textContent = text;
    else status.replaceChildren(status.firstChild ?? '', el('p', {}, text));
  };
  if (gateway.status !== 200) {
    status.replaceChildren(
      ...(replace ? [] : [status.firstChild ?? '']),
      ...refusal(gateway.status, gateway.body),
    );
    return;
  }
  const published = (gateway.body.messageIds ?? []).filter((m) => m !== null).length;
  const refused = gateway.body.invalidRows ?? 0;
  // Why rows were refused, from the endpoint's own answer: "0 stored" never stands alone.
  const reasons = (gateway.body.violations ?? [])
    .slice(0, 10)
    .map((v) => el('li', {}, `${v.field}: ${v.description}`));
  $('send-reasons').replaceChildren(...reasons);
  if (published === 0) {
    say(`The endpoint accepted 0 rows and refused ${refused}: nothing will be stored. Why:`);
    return;
  }
  say(
    `The endpoint accepted ${published} row(s)${refused ? `, refused ${refused} (why below)` : ''}. Waiting for the warehouse…`,
  );
  const deadline = Date.now() + 60_000;
  let last = '';
  let looks = 0;
  for (;;) {
    looks += 1;
    const got = await admin(
      '/v1/admin/arrivals',
      live.events ? { events: live.events, since } : { event: live.event, since },
    );
    if (got.status === 200) {
      const a = got.json as { stored: Record<string, unknown>[]; deliveries: Record<string, unknown>[] };
      renderArrivals(a);
      // Done when every row is stored and the ledger stopped changing between two looks (an
      // event no destination takes may never have a ledger row: then after a few looks).
      const now = JSON.stringify(a.deliveries);
      const settled = now === last && (a.deliveries.length > 0 || looks >= 5);
      last = now;
      if (a.stored.length >= published && settled) {
        say(`${counted(a.stored.length, 'row')} stored in ${storedIn(live)}; deliveries below.`);
        return;
      }
    }
    if (Date.now() > deadline) {
      say(
        `Still arriving after a minute: ${published} row(s) accepted, the rows and deliveries so far are below (is the store function running?).`,
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
}

/** The typed views the rows are stored in: `events.<event>` for each type's event. */
const storedIn = (live: Saved): string => (live.events ?? [live.event]).map((e) => `events.${e}`).join(', ');

function renderArrivals(a: {
  stored: Record<string, unknown>[];
  deliveries: Record<string, unknown>[];
}): void {
  const live = state.live;
  const fields = live?.fields ?? [];
  $('arrivals').replaceChildren(
    el('h4', {}, `Stored (${live ? storedIn(live) : ''})`),
    el(
      'div',
      { class: 'scroll' },
      rowsTable('Stored rows', a.stored, [
        ...(live?.events ? ['event_name'] : []),
        'event_id',
        'event_time',
        ...fields,
      ]),
    ),
    el('h4', {}, 'Deliveries'),
    // In its own scroll box too: a long reason must not widen the page on a phone.
    el(
      'div',
      { class: 'scroll' },
      rowsTable('Deliveries by destination', a.deliveries, ['destination', 'status', 'events', 'reason']),
    ),
  );
}
