/** A POST to the studio's admin API with the admin token: its status and JSON answer. */
export async function adminCall<T = Record<string, Record<string, unknown>[]>>(
  studioUrl: string,
  token: string,
  action: string,
  body: unknown,
): Promise<{ status: number; json: T }> {
  const res = await fetch(`${studioUrl}/v1/admin/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as T };
}
