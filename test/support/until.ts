/** Polling helper of the end-to-end tests: a probe retried until it yields a value or time runs out. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with the probe's first defined value; a throwing probe is retried and its last error reported. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
