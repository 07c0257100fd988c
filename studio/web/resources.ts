/**
 * The studio's resources page (docs/studio.md): the registry's resources of a kind, a resource's
 * versions, the diff between any two of them (core/registry/resource-diff.ts, the same diff as
 * `eventbus apply --dry-run`), and exports as the YAML `eventbus apply` reads. The address keeps
 * the kind and the resource (`/resources?kind=EventDefinition&name=quote_asked`), so a link
 * shows the same thing to a colleague.
 */
import type { ResourceVersion } from '../../core/registry/registry.ts';
import { exportYaml, resourceDiff } from '../../core/registry/resource-diff.ts';
import { $, admin, diffView, el, noteMissingToken, refusal } from './common.ts';

interface IndexEntry {
  name: string;
  version: string;
  updated: string;
  author: string;
  deleted?: boolean;
}

const state: { kind: string; name?: string; versions: ResourceVersion[] } = {
  kind: 'EventDefinition',
  versions: [],
};

const path = (kind: string, name?: string, tail = '') =>
  `/v1/admin/resources/${encodeURIComponent(kind)}${name ? `/${encodeURIComponent(name)}` : ''}${tail}`;

/** The page's address follows what it shows. */
function remember(): void {
  const q = new URLSearchParams({ kind: state.kind, ...(state.name ? { name: state.name } : {}) });
  history.replaceState(null, '', `/resources?${q}`);
}

/** A file the browser saves; nothing leaves the page. */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function loadList(): Promise<IndexEntry[]> {
  const status = $('list-status');
  status.textContent = 'Loading…';
  const { status: code, json } = await admin(path(state.kind));
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    $('list').replaceChildren();
    return [];
  }
  const entries = (json as { resources: IndexEntry[] }).resources;
  const live = entries.filter((e) => !e.deleted).length;
  status.textContent =
    entries.length === 0
      ? 'None yet.'
      : `${live} resource(s)${live < entries.length ? `, ${entries.length - live} deleted` : ''}.`;
  $('list').replaceChildren(
    el(
      'table',
      { 'aria-label': 'Resources' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['Name', 'Version', 'Updated', 'By', 'State'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...entries.map((e) => {
          const open = el('button', { type: 'button', class: 'link' }, e.name);
          open.addEventListener('click', () => void openResource(e.name));
          return el(
            'tr',
            e.name === state.name ? { class: 'current' } : {},
            el('td', {}, open),
            el('td', {}, e.version),
            el('td', {}, e.updated),
            el('td', {}, e.author),
            el('td', {}, e.deleted ? 'deleted' : 'current'),
          );
        }),
      ),
    ),
  );
  return entries;
}

async function openResource(name: string): Promise<void> {
  state.name = name;
  remember();
  const { status, json } = await admin(path(state.kind, name, '/history'));
  $('detail').hidden = false;
  $('detail-name').textContent = `${state.kind}/${name}`;
  if (status !== 200) {
    $('versions').replaceChildren(...refusal(status, json));
    return;
  }
  state.versions = (json as { versions: ResourceVersion[] }).versions;
  for (const row of document.querySelectorAll('#list tbody tr'))
    row.classList.toggle('current', row.querySelector('button')?.textContent === name);
  $('versions').replaceChildren(
    el(
      'table',
      { 'aria-label': 'Versions' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['Version', 'Created', 'By', 'Description'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...state.versions.map((v) =>
          el(
            'tr',
            {},
            el('td', {}, v.version),
            el('td', {}, v.created),
            el('td', {}, v.author),
            el('td', {}, v.description ?? ''),
          ),
        ),
      ),
    ),
  );
  const options = () => state.versions.map((v) => el('option', { value: v.version }, v.version));
  const from = $<HTMLSelectElement>('from');
  const to = $<HTMLSelectElement>('to');
  from.replaceChildren(el('option', { value: '' }, 'nothing (as created)'), ...options());
  to.replaceChildren(...options());
  const n = state.versions.length;
  from.value = n > 1 ? (state.versions[n - 2]?.version ?? '') : '';
  to.value = state.versions[n - 1]?.version ?? '';
  showDiff();
}

const versionOf = (v: string) => state.versions.find((x) => x.version === v);

function showDiff(): void {
  const before = versionOf($<HTMLSelectElement>('from').value);
  const after = versionOf($<HTMLSelectElement>('to').value);
  if (!after) return;
  const diff = resourceDiff(before ? { doc: before, label: before.version } : undefined, {
    doc: after,
    label: after.version,
  });
  $('diff-status').textContent = diff
    ? `What changed from ${before ? before.version : 'nothing'} to ${after.version}:`
    : `${before?.version ?? ''} and ${after.version} are the same document.`;
  $('diff').replaceChildren(
    ...(diff ? [diffView(diff, `Diff from ${before?.version ?? 'nothing'} to ${after.version}`)] : []),
  );
  $('shown-version').textContent = after.version;
  $('version-yaml').textContent = exportYaml([after]);
}

async function exportAll(): Promise<void> {
  const entries = (await loadList()).filter((e) => !e.deleted);
  const docs: ResourceVersion[] = [];
  for (const e of entries) {
    const { status, json } = await admin(path(state.kind, e.name));
    if (status !== 200) {
      $('list-status').replaceChildren(...refusal(status, json));
      return;
    }
    docs.push(json as ResourceVersion);
  }
  download(`${state.kind}.yaml`, exportYaml(docs));
  $('list-status').textContent = `Exported ${docs.length} resource(s) to ${state.kind}.yaml.`;
}

function start(): void {
  noteMissingToken();
  const q = new URLSearchParams(location.search);
  const kind = $<HTMLSelectElement>('kind');
  const asked = q.get('kind');
  if (asked && [...kind.options].some((o) => o.value === asked)) kind.value = asked;
  state.kind = kind.value;
  kind.addEventListener('change', () => {
    state.kind = kind.value;
    delete state.name;
    $('detail').hidden = true;
    remember();
    void loadList();
  });
  $('from').addEventListener('change', showDiff);
  $('to').addEventListener('change', showDiff);
  $('export-all').addEventListener('click', () => void exportAll());
  $('export-one').addEventListener('click', () => {
    const v = versionOf($<HTMLSelectElement>('to').value);
    if (v) download(`${v.kind}-${v.name}-${v.version}.yaml`, exportYaml([v]));
  });
  const name = q.get('name');
  void loadList().then(() => (name ? openResource(name) : undefined));
}

start();
