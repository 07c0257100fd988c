/**
 * A test gateway serving every source of the catalogue as `eventbus source add` makes its
 * translator (with the consent given), each signing source's secret the test secret; shared by
 * test/gateway/sources.test.ts and test/gateway/vendor-examples.test.ts.
 */

import { type Source, secretName, sourceTranslator } from '../../core/translate/sources.ts';
import type { ConsentPurpose, Settings } from '../../schemas/settings.ts';
import { TEST_SECRET } from '../support/source-cases.ts';
import { sourceCatalogue } from '../support/source-catalogue.ts';
import { FakePublisher, fixedTranslators, startTestGateway, type TestGateway } from './support.ts';

export interface CatalogueGateway {
  readonly g: TestGateway;
  readonly pub: FakePublisher;
}

/** The catalogue, by source name. */
export const catalogueByName = (): Map<string, Source> => new Map(sourceCatalogue().map((s) => [s.name, s]));

/** Starts the gateway (close it with `g.close()`). */
export async function startCatalogueGateway(
  opts: { consent?: ConsentPurpose[]; settings?: Settings } = {},
): Promise<CatalogueGateway> {
  const catalogue = sourceCatalogue();
  const translators = Object.fromEntries(
    catalogue.map((s) => [s.name, sourceTranslator(s, opts.consent ? { consent: opts.consent } : {}).spec]),
  );
  const secrets = new Map(catalogue.flatMap((s) => (s.secret ? [[secretName(s, s.name), TEST_SECRET]] : [])));
  const pub = new FakePublisher();
  const g = await startTestGateway({
    publisher: pub,
    translators: fixedTranslators(translators),
    secrets: { get: async (name) => secrets.get(name) },
    ...(opts.settings ? { settings: opts.settings } : {}),
  });
  return { g, pub };
}
