/**
 * Local secret values live in the Secret Manager emulator, as they live in Secret Manager in the
 * cloud: the supervisor stores a value for every destination secret that has none (a random key,
 * or a stand-in's credentials), and `eventbus source add --secret` and the tests store the values
 * they are given. Calls are the owner's, on the emulator's main port (no identity port): the
 * person running `npm start` is the project's owner, as on Google Cloud.
 */
import { readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { emulatorCall } from './provision.ts';

const secretUrl = (base: string, project: string, name: string) =>
  `${base}/v1/projects/${encodeURIComponent(project)}/secrets/${encodeURIComponent(name)}`;

/** Whether the secret has a version whose value can be read. */
export async function hasValue(base: string, project: string, name: string): Promise<boolean> {
  const got = await emulatorCall(`${secretUrl(base, project, name)}/versions/latest:access`);
  return got.status === 200;
}

/** Stores `value` as the secret's newest version, creating the secret first if it does not exist. */
export async function putSecret(base: string, project: string, name: string, value: string): Promise<void> {
  const url = secretUrl(base, project, name);
  const created = await emulatorCall(
    `${base}/v1/projects/${encodeURIComponent(project)}/secrets?secretId=${encodeURIComponent(name)}`,
    'POST',
    {
      replication: { automatic: {} },
    },
  );
  if (created.status !== 200 && created.status !== 409)
    throw new Error(
      `secret ${name}: the Secret Manager emulator answered ${created.status}: ${JSON.stringify(created.json)}`,
    );
  const added = await emulatorCall(`${url}:addVersion`, 'POST', {
    payload: { data: Buffer.from(value).toString('base64') },
  });
  if (added.status !== 200)
    throw new Error(
      `secret ${name}: the Secret Manager emulator answered ${added.status}: ${JSON.stringify(added.json)}`,
    );
}

/**
 * Gives every secret of `wanted` without a value one: `values` names it, else the file of that
 * name in `legacyDir` (secrets earlier versions kept as files in `<data>/secrets`), else a random
 * key. Returns the names given a value by this call.
 *
 * Secret values live in one place: each file of `legacyDir` is removed once the emulator holds a
 * value of that name (the file's, or one it already had, which wins), and the folder with its
 * last file. A file whose name no secret can take is left, and named on `warn`.
 */
export async function seedSecrets(
  base: string,
  project: string,
  wanted: readonly string[],
  values: ReadonlyMap<string, string>,
  randomValue: () => string,
  legacyDir?: string,
  warn: (line: string) => void = () => {},
): Promise<string[]> {
  const legacy = new Map<string, string>();
  if (legacyDir !== undefined) {
    let files: string[] = [];
    try {
      files = readdirSync(legacyDir);
    } catch {
      // no folder of an earlier version: nothing to carry over
    }
    for (const f of files) legacy.set(f, readFileSync(join(legacyDir, f), 'utf8').replace(/\r?\n$/, ''));
  }
  const created: string[] = [];
  const held = new Set<string>();
  for (const name of new Set([...wanted, ...legacy.keys()])) {
    if (!SECRET_ID.test(name)) continue;
    if (await hasValue(base, project, name)) {
      held.add(name);
      continue;
    }
    const value = values.get(name) ?? legacy.get(name) ?? randomValue();
    if (value === '') continue;
    await putSecret(base, project, name, value);
    held.add(name);
    created.push(name);
  }
  if (legacyDir !== undefined) removeMoved(legacyDir, legacy, held, warn);
  return created;
}

/** What a secret's id may be (Secret Manager's rule). */
const SECRET_ID = /^[A-Za-z0-9_-]{1,255}$/;

/** Removes the legacy files whose secret the emulator now holds (an empty file holds none: removed too). */
function removeMoved(
  dir: string,
  legacy: ReadonlyMap<string, string>,
  held: ReadonlySet<string>,
  warn: (line: string) => void,
): void {
  for (const [name, value] of legacy) {
    if (held.has(name) || value === '') rmSync(join(dir, name), { force: true });
    else
      warn(
        `${join(dir, name)}: not moved into Secret Manager (not a secret id: letters, digits, - and _): remove it or rename it`,
      );
  }
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // no folder: nothing to remove
  }
}

/** The latest value of a secret, or undefined when it has none (as the project's owner). */
export async function readSecret(base: string, project: string, name: string): Promise<string | undefined> {
  const got = await emulatorCall(`${secretUrl(base, project, name)}/versions/latest:access`);
  if (got.status === 404) return undefined;
  const data = (got.json['payload'] as { data?: string } | undefined)?.data;
  if (got.status !== 200 || data === undefined)
    throw new Error(
      `secret ${name}: the Secret Manager emulator answered ${got.status}: ${JSON.stringify(got.json)}`,
    );
  return Buffer.from(data, 'base64').toString('utf8');
}

/** The ids of the project's secrets, every page of the listing. */
export async function secretIds(base: string, project: string): Promise<string[]> {
  const ids: string[] = [];
  let token = '';
  do {
    const got = await emulatorCall(
      `${base}/v1/projects/${encodeURIComponent(project)}/secrets?pageSize=250${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
    );
    if (got.status !== 200)
      throw new Error(
        `listing secrets: the Secret Manager emulator answered ${got.status}: ${JSON.stringify(got.json)}`,
      );
    for (const s of (got.json['secrets'] as { name: string }[] | undefined) ?? [])
      ids.push(s.name.slice(s.name.lastIndexOf('/') + 1));
    token = typeof got.json['nextPageToken'] === 'string' ? got.json['nextPageToken'] : '';
  } while (token);
  return ids;
}
