/**
 * After `eventbus apply`: can the gateway read each applied translator's signing secret? A
 * translator is a runtime resource, so nothing checked this at deploy time, and a secret the
 * gateway may not read refuses every signed delivery (docs/translators.md, "Signing secrets").
 *
 * With a running local environment the question is asked as the gateway itself: Secret
 * Manager's testIamPermissions on the secret, with a token minted for the gateway's account, on
 * the Secret Manager emulator (which enforces the grants `pulumi up` gives). Against a deployed
 * studio the CLI has no gateway credentials: it applies the program's rule (names under
 * eventbus-translator- are granted) and says so. Either way a secret the gateway cannot read is
 * reported with the exact command that fixes it.
 */
import { workloadMember } from '../core/access/needs.ts';
import {
  createCommand,
  grantCommand,
  isTranslatorSecret,
  SECRET_ACCESS,
  TRANSLATOR_SECRET_PREFIX,
} from '../core/translate/translator-secrets.ts';

/** A running local environment, to ask as the gateway. */
export interface LocalSecretManager {
  readonly url: string;
  readonly project: string;
  /** A token the emulator takes as the gateway's account. */
  readonly gatewayToken: string;
}

/** The signing secrets of the Translator documents among `documents`, by translator. */
export function translatorSecrets(documents: readonly unknown[]): { translator: string; secret: string }[] {
  return documents.flatMap((d) => {
    const doc = d as {
      kind?: unknown;
      name?: unknown;
      spec?: { auth?: { signature?: { secrets?: unknown } } };
    };
    const secrets = doc.spec?.auth?.signature?.secrets;
    if (doc.kind !== 'Translator' || typeof doc.name !== 'string' || !Array.isArray(secrets)) return [];
    const translator = doc.name;
    return secrets
      .filter((s): s is string => typeof s === 'string')
      .map((secret) => ({ translator, secret }));
  });
}

async function secretManagerCall(url: string, token: string | undefined, body?: unknown) {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as { permissions?: string[] } };
}

/**
 * One line per secret the gateway cannot read, with the command that fixes it (none when every
 * secret is readable). `project` names the deployed project (for the commands) when not local.
 */
export async function unreadableSecrets(
  documents: readonly unknown[],
  target: { readonly local?: LocalSecretManager; readonly project: string },
): Promise<string[]> {
  const lines: string[] = [];
  const project = target.local?.project ?? target.project;
  const gateway = workloadMember('gateway', project);
  for (const { translator, secret } of translatorSecrets(documents)) {
    const grant = `  ${grantCommand(project, secret, gateway)}`;
    const local = target.local;
    if (!local) {
      if (!isTranslatorSecret(secret))
        lines.push(
          `translator ${translator}: its signing secret ${secret} is not named ${TRANSLATOR_SECRET_PREFIX}…, so the gateway may not read it (${SECRET_ACCESS}) until it is granted:`,
          grant,
        );
      continue;
    }
    const base = `${local.url}/v1/projects/${encodeURIComponent(project)}/secrets/${encodeURIComponent(secret)}`;
    const held = await secretManagerCall(`${base}:testIamPermissions`, local.gatewayToken, {
      permissions: [SECRET_ACCESS],
    });
    if (held.status === 200 && held.json.permissions?.includes(SECRET_ACCESS)) continue;
    // testIamPermissions answers nothing for a secret that does not exist: ask as the owner.
    const exists = (await secretManagerCall(base, undefined)).status === 200;
    if (!exists)
      lines.push(
        `translator ${translator}: its signing secret ${secret} does not exist yet: create it (the value from the vendor's dashboard, on standard input):`,
        `  ${createCommand(project, secret)}`,
        ...(isTranslatorSecret(secret) ? [] : [`  and let the gateway read it (${SECRET_ACCESS}):`, grant]),
      );
    else
      lines.push(
        `translator ${translator}: the gateway (${gateway}) cannot read its signing secret ${secret} (${SECRET_ACCESS} denied): grant it, or name the secret ${TRANSLATOR_SECRET_PREFIX}…:`,
        grant,
      );
  }
  return lines;
}
