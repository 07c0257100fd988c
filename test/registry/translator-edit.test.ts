/**
 * How soon an edit to a translator the gateway already holds is served (docs/registry.md#reading),
 * through the gateway's own endpoint over the real Cloud Storage emulator, on a reader whose clock
 * the test moves: until the copy's age reaches `maxAgeMs` the held version answers; the first
 * request after that is answered with the edit, however long the gateway was idle before it (it
 * waits for the refresh it starts, briefly). Which version answered shows in the 415 a text/plain
 * body gets: the media type the translator's format accepts.
 */
import assert from 'node:assert/strict';
import { translatorLookup } from '../../adapters/definitions.ts';
import { RegistryClient, RegistryReader } from '../../adapters/registry.ts';
import type { ResourceDoc } from '../../core/registry/registry.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { FakePublisher, startTestGateway, type TestGateway } from '../gateway/support.ts';

const MAX_AGE_MS = 30_000;

const translator = (format: 'json' | 'ndjson'): ResourceDoc => ({
  kind: 'Translator',
  name: 'quotes-feed',
  spec: { event: 'quote_asked', format: { type: format }, fields: [{ target: 'amount', source: 'amount' }] },
});

describe('registry: an edit to a translator the gateway holds', () => {
  const fx = emulatorWithFreshBuckets('translator-edit-registry');
  let gw: TestGateway | undefined;
  let token = '';
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  /** The media type the translator's current version accepts, as the gateway's 415 names it. */
  const served = async (): Promise<string> => {
    const res = await fetch(`${gw?.url}/v1/translators/quotes-feed`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: 'x',
    });
    const body = (await res.json()) as { error: { message: string } };
    assert.equal(res.status, 415, body.error.message);
    const accepted = /send (\S+?)[.;,]/.exec(body.error.message)?.[1];
    assert.ok(accepted, body.error.message);
    return accepted;
  };

  it('is served from the first request after the copy is maxAgeMs old, also after an idle spell', async () => {
    let now = 1_000_000;
    const client = new RegistryClient(fx.bucket);
    await client.apply([translator('json')], { author: 'test' });
    const reader = new RegistryReader(client, { clock: () => now, maxAgeMs: MAX_AGE_MS });
    gw = await startTestGateway({ publisher: new FakePublisher(), translators: translatorLookup(reader) });
    token = await gw.mint(['translate:quotes-feed']);

    // A name the copy does not hold is read at once.
    assert.equal(await served(), 'application/json');
    await client.apply([translator('ndjson')], { author: 'test' });
    now += MAX_AGE_MS - 1;
    assert.equal(await served(), 'application/json', 'the copy is served until it is maxAgeMs old');
    // Idle long past the age (no request started a refresh): the next request gets the edit.
    now += 10 * MAX_AGE_MS;
    assert.equal(await served(), 'application/x-ndjson');

    // Edited again right after a read: the bound holds from that read, and no later.
    await client.apply([translator('json')], { author: 'test' });
    now += MAX_AGE_MS - 1;
    assert.equal(await served(), 'application/x-ndjson');
    now += 1;
    assert.equal(await served(), 'application/json');
  });
});
