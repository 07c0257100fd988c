/**
 * The names the creator recognises (core/samples/synonyms.ts): every target is named by at least
 * the words below, in the languages the list covers, and takes the column with the kinds of value
 * its rule allows (a value of another kind contradicts the name: the match is only a guess).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { InferredFormat, InferredType } from '../../../core/samples/sample.ts';
import { CONTEXT_TARGETS, DATA_FIELDS, suggestMappings } from '../../../core/samples/suggest.ts';

type Kind = { type: InferredType; format?: InferredFormat };

/**
 * A name of each target, a value kind it takes (and others it also takes, where its rule lists
 * more than one), and a kind that contradicts it.
 */
const NAMED: { name: string; kind: Kind; also?: Kind[]; target: string; contradicted: Kind }[] = JSON.parse(
  readFileSync(new URL('./target-names.json', import.meta.url), 'utf8'),
);

const suggested = (name: string, kind: Kind) => suggestMappings([{ name, ...kind }])[0];
const targetOf = (s: ReturnType<typeof suggested>) => (s?.target === 'event_data' ? s.field : s?.target);

describe('the names the creator recognises', () => {
  it('names every target', () => {
    assert.deepEqual(NAMED.map((n) => n.target).sort(), [...CONTEXT_TARGETS, ...DATA_FIELDS].sort());
  });

  for (const { name, kind, also, target, contradicted } of NAMED)
    it(`takes ${JSON.stringify(name)} as ${target}, surely only with the values it holds`, () => {
      for (const taken of [kind, ...(also ?? [])]) {
        const sure = suggested(name, taken);
        assert.equal(targetOf(sure), target, JSON.stringify(taken));
        assert.ok((sure?.confidence ?? 0) >= 0.9, JSON.stringify(sure));
      }
      const doubted = suggested(name, contradicted);
      assert.ok(targetOf(doubted) !== target || (doubted?.confidence ?? 1) < 0.5, JSON.stringify(doubted));
    });
});
