/**
 * One OAuth client process of test/delivery/oauth-refresh-rotation.test.ts: ROUNDS refreshes
 * against a token endpoint that rotates refresh tokens, with the refresh token kept in a Secret
 * Manager (emulator) secret. MODE `claim`: each refresh under forward-catalog's claim
 * (refresh-rotation.ts), the rotated token written back; MODE `memory`: the secret read once and
 * the rotated token kept in this process only, as before issue #100. Prints one JSON line.
 */
import { secretVersions } from '../../adapters/secret-versions.ts';
import { secretManagerCall } from '../../adapters/secrets.ts';
import { refreshUnderClaim } from '../../core/platforms/segment-action/refresh-rotation.ts';

const env = (name: string): string => process.env[name] ?? '';
const versions = secretVersions(env('PROJECT'), env('SECRET'), secretManagerCall(undefined, env('SM_URL')));

/** One refresh at the token endpoint: the new refresh token, or the error code it answered. */
async function refresh(refreshToken: string): Promise<{ refreshToken?: string; error?: string }> {
  const res = await fetch(env('TOKEN_URL'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: env('CLIENT_ID'),
      client_secret: env('CLIENT_SECRET'),
    }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { refresh_token?: string; error?: string };
  if (res.status !== 200)
    throw Object.assign(new Error(body.error ?? `HTTP ${res.status}`), { code: body.error });
  return body.refresh_token ? { refreshToken: body.refresh_token } : {};
}

const clock = { now: Date.now, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
const tally = { ok: 0, invalidGrant: 0, other: [] as string[] };
let inMemory: string | undefined;
for (let i = 0; i < Number(env('ROUNDS')); i++) {
  try {
    if (env('MODE') === 'claim') await refreshUnderClaim(env('SECRET'), versions, refresh, clock);
    else {
      const latest = await versions.latest();
      inMemory ??= (latest ? await versions.access(latest.version) : undefined) ?? '';
      inMemory = (await refresh(inMemory)).refreshToken ?? inMemory;
    }
    tally.ok++;
  } catch (err) {
    if ((err as { code?: string }).code === 'invalid_grant') tally.invalidGrant++;
    else tally.other.push(String(err));
  }
}
process.stdout.write(`${JSON.stringify(tally)}\n`);
