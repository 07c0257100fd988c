/**
 * docs/senders.md's table of signature schemes (`<!-- generated:signature-schemes -->`), from
 * the schema's scheme list in its order and core/translate/signature-schemes.ts's facts: written
 * by `npm run docs` (scripts/docs-generate.ts), checked by test/unit/scripts/docs-generate.test.ts.
 */
import { SCHEME_FACTS } from '../core/translate/signature-schemes.ts';
import type { SignatureScheme } from '../schemas/translator-signature.ts';
import { TranslatorSignature } from '../schemas/translator-signature.ts';

/** The schemes as the schema lists them (the studio's list has the same order). */
function schemes(): SignatureScheme[] {
  const scheme = (
    TranslatorSignature as unknown as { properties: { scheme: { anyOf: { const: string }[] } } }
  ).properties.scheme;
  return scheme.anyOf.map((o) => o.const as SignatureScheme);
}

/** The Markdown table, one row per scheme. */
export function signatureSchemeTable(): string {
  const rows = schemes().map((s) => {
    const f = SCHEME_FACTS[s];
    return `| \`${s}\` | ${f.header} | ${f.signed} | ${f.digest} |`;
  });
  return ['| `scheme` | header | what is signed | digest |', '|---|---|---|---|', ...rows].join('\n');
}
