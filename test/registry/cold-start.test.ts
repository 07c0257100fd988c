/**
 * A cold start under a slow registry (issue #98): the gateway's first requests for a translator
 * arrive before the registry's first read has answered, and that read takes longer than the old
 * 500 ms cold wait (as it did, 10 times under load). The gateway waits for it within the
 * request's budget (registryReaderOptions, the options registryReaders gives its reader): no
 * request is answered 503 for a registry that can be read.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { registryReaderOptions, translatorLookup } from '../../adapters/definitions.ts';
import { RegistryClient, RegistryReader } from '../../adapters/registry.ts';
import type { RegistryKind } from '../../core/registry/registry.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { FakePublisher, startTestGateway, type TestGateway } from '../gateway/support.ts';

/** How much slower than the old cold wait the registry answers its index. */
const SLOW_MS = 1200;

/** The registry, answering each index read SLOW_MS late. */
class SlowRegistry extends RegistryClient {
  override async readIndex(kind: RegistryKind, known?: number) {
    await sleep(SLOW_MS);
    return super.readIndex(kind, known);
  }
}

describe('registry: a cold start under a slow registry answers no 503', () => {
  const fx = emulatorWithFreshBuckets('cold-start-registry');
  let gw: TestGateway | undefined;
  after(async () => gw?.close());

  it('the first requests for a translator wait for the slow first read, and none gets 503', async () => {
    const client = new SlowRegistry(fx.bucket);
    const feed = {
      event: 'quote_asked',
      format: { type: 'json' },
      fields: [{ target: 'amount', source: 'amount' }],
    };
    await new RegistryClient(fx.bucket).apply([{ kind: 'Translator', name: 'quotes-feed', spec: feed }], {
      author: 'test',
    });
    const reader = new RegistryReader(client, registryReaderOptions({}));
    gw = await startTestGateway({ publisher: new FakePublisher(), translators: translatorLookup(reader) });
    const token = await gw.mint(['translate:quotes-feed']);
    // Ten first requests at once, as after a start under load; text/plain: the translator's 415 shows it was read.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${gw?.url}/v1/translators/quotes-feed`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
          body: 'x',
        }).then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(10).fill(415),
      JSON.stringify(answers.find((a) => a.status !== 415)),
    );
  });

  it('the cold wait outlasts the slow read, within a request budget', () => {
    const wait = registryReaderOptions({}).coldWaitMs ?? 0;
    assert.ok(wait > SLOW_MS && wait <= 10_000, `${wait} ms`);
  });
});
