/**
 * Resources as the YAML `eventbus apply` reads, and the line diff between two versions
 * (docs/studio.md): what `apply --dry-run`, `eventbus diff -f` and the studio's pages show. Only
 * the document's own keys are compared (kind, name, description, owner, spec), never the
 * version's metadata (version, author, created). Pure; runs in the browser too (the `diff`
 * package, jsdiff, computes the unified diff).
 */
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import type { ResourceDoc, ResourceVersion } from './registry.ts';

/** A document (or a stored version) as the YAML `eventbus apply -f` reads back unchanged. */
export function resourceYaml(doc: ResourceDoc): string {
  const plain: Record<string, unknown> = { kind: doc.kind, name: doc.name };
  if (doc.description !== undefined) plain['description'] = doc.description;
  if (doc.owner !== undefined) plain['owner'] = doc.owner;
  plain['spec'] = doc.spec;
  return stringify(plain, { lineWidth: 0 });
}

/**
 * Stored versions as an export: one YAML stream (`---` between documents), each with its
 * version, author and time in a comment, so that `eventbus apply -f` reads it back unchanged.
 */
export function exportYaml(versions: readonly ResourceVersion[]): string {
  return versions
    .map((v) => `# ${v.kind}/${v.name} ${v.version}, by ${v.author} at ${v.created}\n${resourceYaml(v)}`)
    .join('---\n');
}

/**
 * The unified diff from `before` to `after` (either absent: created or deleted), labelled with
 * the versions; the empty string when both are the same document.
 */
export function resourceDiff(
  before: { readonly doc: ResourceDoc; readonly label: string } | undefined,
  after: { readonly doc: ResourceDoc; readonly label: string } | undefined,
): string {
  const a = before ? resourceYaml(before.doc) : '';
  const b = after ? resourceYaml(after.doc) : '';
  if (a === b) return '';
  const doc = (after ?? before)?.doc;
  const path = doc ? `${doc.kind}/${doc.name}` : 'resource';
  const patch = createTwoFilesPatch(
    path,
    path,
    a,
    b,
    before?.label ?? '(none)',
    after?.label ?? '(deleted)',
    { context: 3 },
  );
  // The header's first line ("Index: …" and a rule) says nothing the labels do not.
  return patch.replace(/^=+\n/m, '').replace(/^Index: .*\n/, '');
}
