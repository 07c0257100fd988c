/**
 * The creator's "I have …" picker (issue #37): the source catalogue (docs/sources/README.md) as
 * presets. Choosing a source and the consent the business has applies its translator through the
 * admin API, as `eventbus source add` does, then says what to paste in the vendor's dashboard,
 * which secret to set and where GA4's client id comes from. Its own script and section of the
 * creator's page, so the creator's walk is untouched.
 */
import { CONSENT_PURPOSES } from '../../core/samples/draft.ts';
import { connectText, type Source, secretName, sourceTranslator } from '../../core/translate/sources.ts';
import { $, admin, el, refusal } from './common.ts';

/** The catalogue and the gateway's address, as the page was served them. */
interface Picker {
  readonly sources: readonly Source[];
  readonly gateway: string;
}

async function load(): Promise<Picker> {
  const sources = (await (await fetch('/assets/sources.json')).json()) as Source[];
  const config = (await (await fetch('/config.json')).json().catch(() => ({}))) as { gatewayUrl?: string };
  return { sources, gateway: config.gatewayUrl ?? 'https://{gateway}' };
}

/** What a person does next once the translator is applied: the vendor's side, the secret, GA4. */
function nextSteps(source: Source, name: string, gateway: string): HTMLElement[] {
  const secret = secretName(source, name);
  return [
    el('p', {}, `Translator ${name} is live. In ${source.title}:`),
    el('pre', {}, connectText(source, gateway, name)),
    ...(secret
      ? [
          el(
            'p',
            {},
            `Its signing secret goes in Secret Manager as ${secret} (on npm start, \`npm run cli -- source add ${source.name} --secret …\` writes it).`,
          ),
        ]
      : []),
    ...(source.auth === 'url_token'
      ? [el('p', {}, `Its URL carries a token: npm run cli -- token create --scope translate:${name}`)]
      : []),
    el('p', {}, `GA4 client id: ${source.ga4_client_id}`),
  ];
}

async function addSource(picker: Picker): Promise<void> {
  const source = picker.sources.find((s) => s.name === $<HTMLSelectElement>('source-vendor').value);
  const out = $('source-result');
  if (!source) {
    out.replaceChildren(el('p', { class: 'err' }, 'Choose the tool you have first.'));
    return;
  }
  const consent = CONSENT_PURPOSES.filter((p) => $<HTMLInputElement>(`source-consent-${p}`).checked);
  const resource = sourceTranslator(source, { consent });
  const { status, json } = await admin('/v1/admin/apply', { documents: [resource], dryRun: false });
  if (status !== 200) {
    out.replaceChildren(...refusal(status, json));
    return;
  }
  out.replaceChildren(...nextSteps(source, resource.name, picker.gateway));
}

async function start(): Promise<void> {
  const picker = await load();
  $('source-vendor').replaceChildren(
    el('option', { value: '' }, 'choose…'),
    ...picker.sources.map((s) => el('option', { value: s.name }, s.title)),
  );
  $('source-add').addEventListener('click', () => void addSource(picker));
}

void start();
