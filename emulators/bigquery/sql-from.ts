/**
 * What a statement's table positions (after FROM, JOIN, a comma in FROM, a DML target) name, and
 * their DuckDB form: a WITH clause's CTEs, a script's temporary tables, `INFORMATION_SCHEMA`
 * views, `UNNEST(…)` and dataset tables, which are resolved against the job's project and default
 * dataset and recorded in order (the tables a job reads and writes). Pure.
 */
import {
  INFORMATION_SCHEMA_VIEWS,
  type InformationSchemaView,
  informationSchemaSql,
} from './information-schema.ts';
import {
  type DatasetRef,
  type Group,
  InvalidSqlError,
  isGroup,
  isOp,
  isWord,
  type Node,
  qualifiedName,
  quoteIdent,
  type Rewriter,
  stringLiteral,
  TABLE_SUFFIX,
  type TableRef,
  type Token,
  type TranslateOptions,
  UnsupportedSqlError,
} from './sql-tree.ts';

/** Words that end a FROM clause's table list (and so are never a table's alias). */
export const CLAUSE_ENDS_FROM = new Set([
  'WHERE',
  'GROUP',
  'HAVING',
  'QUALIFY',
  'WINDOW',
  'ORDER',
  'LIMIT',
  'UNION',
  'INTERSECT',
  'SELECT',
  'ON',
  'USING',
  'SET',
  'VALUES',
  'OFFSET',
]);

/** Words that follow a table reference without being its alias. */
const JOIN_WORDS = ['WITH', 'LEFT', 'RIGHT', 'INNER', 'CROSS', 'JOIN', 'FULL'];

/** Reads a dotted name (idents and backticked parts) from nodes at i; returns its parts and the next index. */
export function readName(nodes: readonly Node[], i: number): [string[], number] {
  const parts: string[] = [];
  let j = i;
  for (;;) {
    const n = nodes[j];
    if (n === undefined || (n.kind !== 'ident' && n.kind !== 'qident')) break;
    parts.push(n.text);
    j++;
    // A hyphenated unquoted project id (my-project.d.t) arrives as ident '-' ident.
    if (isOp(nodes[j], '.') || (isOp(nodes[j], '-') && n.kind === 'ident' && parts.length === 1)) {
      if (isOp(nodes[j], '-')) {
        let name = parts.pop() as string;
        while (isOp(nodes[j], '-') && (nodes[j + 1]?.kind === 'ident' || nodes[j + 1]?.kind === 'number')) {
          name += `-${(nodes[j + 1] as Token).text}`;
          j += 2;
        }
        parts.push(name);
        if (!isOp(nodes[j], '.')) break;
      }
      j++;
      continue;
    }
    break;
  }
  return [parts, j];
}

/** The names one statement's table positions resolve to, and the dataset tables it names. */
export class TableScope {
  readonly opts: TranslateOptions;
  /** The WITH clause's names, lower case: they hide a script's temporary tables and the default dataset's. */
  readonly ctes = new Set<string>();
  /** Every dataset table referenced, in order of appearance. */
  readonly tables: TableRef[] = [];
  /** Every dataset whose INFORMATION_SCHEMA views are read, in order of appearance. */
  readonly schemaViews: DatasetRef[] = [];
  unnestCounter = 0;
  /** How many wildcard tables the statement has named so far. */
  wildcards = 0;

  constructor(opts: TranslateOptions) {
    this.opts = opts;
  }

  /** A dataset table named by 1 to 3 parts (`t` in the default dataset, `d.t`, `p.d.t`), recorded. */
  resolveTable(parts: string[], pos: number): TableRef {
    const clean = parts.flatMap((p) => p.split('.'));
    for (const p of clean) {
      if (p.endsWith('*')) throw new UnsupportedSqlError('wildcard tables', clean.join('.'));
    }
    let ref: TableRef;
    if (clean.length === 3) {
      ref = { projectId: clean[0] as string, datasetId: clean[1] as string, tableId: clean[2] as string };
    } else if (clean.length === 2) {
      ref = { projectId: this.opts.projectId, datasetId: clean[0] as string, tableId: clean[1] as string };
    } else if (clean.length === 1) {
      const dd = this.opts.defaultDataset;
      if (!dd)
        throw new InvalidSqlError(
          `Table "${clean[0]}" must be qualified with a dataset (e.g. dataset.table) at [${pos}]`,
        );
      ref = {
        projectId: dd.projectId ?? this.opts.projectId,
        datasetId: dd.datasetId,
        tableId: clean[0] as string,
      };
    } else {
      throw new InvalidSqlError(`Invalid table name: ${clean.join('.')}`);
    }
    this.tables.push(ref);
    return ref;
  }

  /**
   * A wildcard table (`[project.]dataset.prefix*`, BigQuery's "Query multiple tables using a
   * wildcard table"): the union of the dataset's tables whose names start with the prefix, each
   * row with `_TABLE_SUFFIX`, what the `*` matched. Its columns are those of the most recently
   * created match; an older table lacking one reads NULL there, and its columns the newest lacks
   * are not read. A match that is a view refuses the query, whatever the WHERE clause says; no
   * match at all is a table not found (the pattern recorded as a table the job checks). The
   * matches are recorded as the tables the job reads.
   */
  wildcardTable(parts: string[], pos: number): string {
    const clean = parts.flatMap((p) => p.split('.'));
    const last = clean.at(-1) ?? '';
    if (clean.slice(0, -1).some((p) => p.includes('*')) || last.indexOf('*') !== last.length - 1)
      throw new InvalidSqlError(
        `Invalid table name: ${clean.join('.')}: * must end the table name at [${pos}]`,
      );
    if (!this.opts.wildcard) throw new UnsupportedSqlError('wildcard tables', clean.join('.'));
    const dd = this.opts.defaultDataset;
    const [projectId, datasetId] =
      clean.length === 3
        ? [clean[0] as string, clean[1] as string]
        : clean.length === 2
          ? [this.opts.projectId, clean[0] as string]
          : [dd?.projectId ?? this.opts.projectId, dd?.datasetId];
    if (datasetId === undefined)
      throw new InvalidSqlError(
        `Table "${last}" must be qualified with a dataset (e.g. dataset.table) at [${pos}]`,
      );
    const prefix = last.slice(0, -1);
    const matches = this.opts.wildcard(projectId, datasetId, prefix) ?? [];
    const view = matches.find((m) => m.type !== 'TABLE');
    if (view)
      throw new InvalidSqlError(
        `Views cannot be queried through prefix. First view ${projectId}:${datasetId}.${view.tableId}.`,
      );
    if (matches.length === 0) {
      // Not found, as BigQuery says it: the job's table check names the pattern.
      this.tables.push({ projectId, datasetId, tableId: last });
      return qualifiedName({ projectId, datasetId, tableId: last });
    }
    this.wildcards++;
    const newest = matches.reduce((a, b) => (b.created > a.created ? b : a));
    // The newest match first: a union by name keeps the first branch's column order.
    const branches = [newest, ...matches.filter((m) => m !== newest)].map((m) => {
      const ref = { projectId, datasetId, tableId: m.tableId };
      this.tables.push(ref);
      const have = new Set(m.columns.map((c) => c.toLowerCase()));
      const cols = newest.columns.filter((c) => have.has(c.toLowerCase())).map(quoteIdent);
      const suffix = `${stringLiteral(m.tableId.slice(prefix.length))} AS ${quoteIdent(TABLE_SUFFIX)}`;
      return `SELECT ${[...cols, suffix].join(', ')} FROM ${qualifiedName(ref)}`;
    });
    return `(${branches.join(' UNION ALL BY NAME ')})`;
  }

  /** A script's temporary table named by an unqualified name, as DuckDB names it; else undefined. */
  tempTable(parts: readonly string[]): string | undefined {
    return parts.length === 1 ? this.opts.temp?.get((parts[0] as string).toLowerCase()) : undefined;
  }

  /** `[project.]dataset.INFORMATION_SCHEMA.<view>` as a subquery, or undefined for other names. */
  informationSchema(parts: string[]): string | undefined {
    const clean = parts.flatMap((p) => p.split('.'));
    const at = clean.findIndex((p) => p.toUpperCase() === 'INFORMATION_SCHEMA');
    if (at < 0) return undefined;
    const view = (clean[at + 1] ?? '').toUpperCase();
    // Without a dataset, the job's default dataset is the scope (Cube's schema introspection reads
    // `INFORMATION_SCHEMA.COLUMNS` so).
    const dd = this.opts.defaultDataset;
    const scope = at === 0 && dd ? [dd.projectId ?? this.opts.projectId, dd.datasetId] : clean.slice(0, at);
    if (
      at !== clean.length - 2 ||
      scope.length === 0 ||
      scope.length > 2 ||
      /^region-/i.test(scope.at(-1) ?? '')
    )
      throw new UnsupportedSqlError(
        'INFORMATION_SCHEMA outside a dataset (only [<dataset>.]INFORMATION_SCHEMA.TABLES, .COLUMNS and .PARTITIONS, the dataset given or the default one)',
      );
    if (!INFORMATION_SCHEMA_VIEWS.includes(view as InformationSchemaView))
      throw new UnsupportedSqlError(`INFORMATION_SCHEMA.${view} (only TABLES, COLUMNS and PARTITIONS)`);
    const projectId = scope.length === 2 ? (scope[0] as string) : this.opts.projectId;
    this.schemaViews.push({ projectId, datasetId: scope.at(-1) as string });
    return `(${informationSchemaSql(projectId, scope.at(-1) as string, view as InformationSchemaView)})`;
  }

  /** Translates a table reference position: a name, a subquery or UNNEST(...). */
  tableRef(rw: Rewriter, nodes: readonly Node[], i: number, out: string[]): number {
    const n = nodes[i];
    if (isWord(n, 'UNNEST') && isGroup(nodes[i + 1], '(')) {
      return this.unnestRef(rw, nodes, i, out);
    }
    if (isWord(n, 'LATERAL')) {
      out.push('LATERAL');
      return i + 1;
    }
    if (isGroup(n, '(')) {
      out.push(rw.group(n));
      return i + 1;
    }
    if (n !== undefined && (n.kind === 'ident' || n.kind === 'qident')) {
      const [parts, j] = readName(nodes, i);
      const temp = this.ctes.has((parts[0] as string).toLowerCase()) ? undefined : this.tempTable(parts);
      if (temp !== undefined) {
        out.push(temp);
        return j;
      }
      if (parts.length === 1 && n.kind === 'ident' && this.ctes.has((parts[0] as string).toLowerCase())) {
        out.push(quoteIdent(parts[0] as string));
        return j;
      }
      if (
        parts.length === 1 &&
        n.kind === 'qident' &&
        !n.text.includes('.') &&
        this.ctes.has(n.text.toLowerCase())
      ) {
        out.push(quoteIdent(n.text));
        return j;
      }
      if ((parts.at(-1) ?? '').includes('*')) {
        out.push(this.wildcardTable(parts, n.pos));
        if (isWord(nodes[j], 'FOR') && isWord(nodes[j + 1], 'SYSTEM_TIME'))
          throw new UnsupportedSqlError('FOR SYSTEM_TIME AS OF');
        return j;
      }
      const info = this.informationSchema(parts);
      if (info !== undefined) {
        // Without an alias the view is named by its last part, as a table is (`columns.column_name`).
        const next = nodes[j];
        const aliased =
          isWord(next, 'AS') ||
          next?.kind === 'qident' ||
          (next?.kind === 'ident' &&
            !CLAUSE_ENDS_FROM.has(next.text.toUpperCase()) &&
            !isWord(next, ...JOIN_WORDS, 'ON', 'USING'));
        const view = (parts.at(-1) ?? '').split('.').pop() ?? '';
        out.push(aliased ? info : `${info} AS ${quoteIdent(view)}`);
      } else out.push(qualifiedName(this.resolveTable(parts, n.pos)));
      if (isWord(nodes[j], 'FOR') && isWord(nodes[j + 1], 'SYSTEM_TIME'))
        throw new UnsupportedSqlError('FOR SYSTEM_TIME AS OF');
      return j;
    }
    return i;
  }

  /** `UNNEST(arr) [AS] x [WITH OFFSET [AS] o]` → a lateral subquery producing column x (and o). */
  unnestRef(rw: Rewriter, nodes: readonly Node[], i: number, out: string[]): number {
    const arg = rw.expr((nodes[i + 1] as Group).items);
    let j = i + 2;
    if (isWord(nodes[j], 'AS')) j++;
    let alias: string | undefined;
    const aliasNode = nodes[j];
    if (
      aliasNode !== undefined &&
      (aliasNode.kind === 'qident' ||
        (aliasNode.kind === 'ident' &&
          !CLAUSE_ENDS_FROM.has(aliasNode.text.toUpperCase()) &&
          !isWord(aliasNode, ...JOIN_WORDS)))
    ) {
      alias = aliasNode.text;
      j++;
    }
    let offset: string | undefined;
    if (isWord(nodes[j], 'WITH') && isWord(nodes[j + 1], 'OFFSET')) {
      j += 2;
      if (isWord(nodes[j], 'AS')) j++;
      offset = 'offset';
      const on = nodes[j];
      if (
        on !== undefined &&
        (on.kind === 'qident' || (on.kind === 'ident' && !CLAUSE_ENDS_FROM.has(on.text.toUpperCase())))
      ) {
        offset = on.text;
        j++;
      }
    }
    // Without an alias, BigQuery makes an array of structs' fields the row's columns (`FROM t,
    // UNNEST(items)` then `item_id`; `(SELECT value.int_value FROM UNNEST(event_params) WHERE key
    // = …)`), and names a scalar element f0_. DuckDB's unnest to depth 2 does both: a struct's
    // fields become columns (the alias is then unused), a scalar keeps the alias.
    // With an alias x, the range is named x too: `x.field` is then the field of an element of
    // structs, and `UNNEST(items) AS items` shadows the column items as in BigQuery instead of
    // being ambiguous; a scalar element is the column x.
    const cols = [`unnest(__arr, max_depth := 2) AS ${quoteIdent(alias ?? 'f0_')}`];
    if (offset !== undefined) cols.push(`generate_subscripts(__arr, 1) - 1 AS ${quoteIdent(offset)}`);
    this.unnestCounter++;
    const name = alias === undefined ? `__unnest_${this.unnestCounter}` : quoteIdent(alias);
    out.push(`(SELECT ${cols.join(', ')} FROM (SELECT ${arg} AS __arr)) AS ${name}`);
    return j;
  }

  /** Records the CTE names of `WITH name AS (…) [, name AS (…)]*` starting at nodes[i]. */
  registerCtes(nodes: readonly Node[], i: number): void {
    let j = i;
    for (;;) {
      const name = nodes[j];
      if (name === undefined || (name.kind !== 'ident' && name.kind !== 'qident')) return;
      if (!isWord(nodes[j + 1], 'AS') || !isGroup(nodes[j + 2], '(')) return;
      this.ctes.add(name.text.toLowerCase());
      j += 3;
      if (!isOp(nodes[j], ',')) return;
      j++;
    }
  }
}
