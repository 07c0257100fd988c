/**
 * The part of Segment's subscription language (FQL) the decision layer can judge from an event's
 * name alone (docs/catalog-destinations.md, "Decision layer"): conditions on `type` and `event`
 * with `=` and `!=`, joined by `and` or `or`, with one level of parentheses — what almost every
 * action's default subscription and every `when` list is. Anything else (a property, `contains`,
 * `match`, numbers, `and` and `or` mixed without parentheses, which actions-core reads its own
 * way) is `unknown`, and a verdict that depends on it is `undefined`: the event is sent, and the
 * runtime's own matcher (actions-core, in forward-catalog) decides. So a subscription judged here
 * never refuses an event the runtime would take. Pure; loads nothing of actions-core.
 */

/** What a subscription is matched against: the Segment call our event becomes (segment-event.ts). */
export interface SegmentCall {
  readonly type: string;
  /** The track call's event name (undefined for page, identify, group and alias calls). */
  readonly event: string | undefined;
}

/** A compiled subscription: whether it takes a call (undefined: cannot tell here), and the event names it equals. */
export interface Fql {
  readonly takes: (call: SegmentCall) => boolean | undefined;
  /** Every `event = "<name>"` the subscription names (whether or not it is judged here). */
  readonly names: ReadonlySet<string>;
}

type Node =
  | { readonly kind: 'is'; readonly field: 'type' | 'event'; readonly equal: boolean; readonly value: string }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'all' | 'any'; readonly children: readonly Node[] };

type Token =
  | { readonly t: 'word'; readonly v: string }
  | { readonly t: 'string'; readonly v: string }
  | { readonly t: 'op'; readonly v: string }
  | { readonly t: 'number' | '(' | ')' | ',' };

const UNKNOWN: Node = { kind: 'unknown' };

/** Bare words that are not text values (actions-core reads them as booleans, null, or a conjunction). */
const NOT_TEXT: ReadonlySet<string> = new Set(['true', 'false', 'null', 'and', 'or']);

/** Compiles a subscription once; a text outside the judged part is compiled to `unknown`, never refused. */
export function compileFql(text: string): Fql {
  const names = new Set<string>();
  const tokens = lex(text);
  const parsed = tokens ? group(tokens, 0, 0, names) : undefined;
  const node = parsed && parsed.at === tokens?.length ? parsed.node : UNKNOWN;
  return { takes: (call) => evaluate(node, call), names };
}

/** Three-valued: false when it is false whatever the unknown parts say, true likewise, else undefined. */
function evaluate(node: Node, call: SegmentCall): boolean | undefined {
  switch (node.kind) {
    case 'unknown':
      return undefined;
    case 'is': {
      const actual = node.field === 'type' ? call.type : call.event;
      return (actual === node.value) === node.equal;
    }
    case 'all':
    case 'any': {
      // `all` is decided by a false child, `any` by a true one; otherwise unknown if any is.
      const decisive = node.kind === 'any';
      let open = false;
      for (const child of node.children) {
        const v = evaluate(child, call);
        if (v === decisive) return decisive;
        if (v === undefined) open = true;
      }
      return open ? undefined : !decisive;
    }
  }
}

/** One token at a time: a word (a dotted path), a double-quoted string, a number, an operator, punctuation. */
const TOKEN =
  /\s*(?:([A-Za-z_$][\w$]*(?:\.[\w$]+)*)|"([^"\\]*)"|(-?\d+(?:\.\d+)?)|(!=|<=|>=|=|<|>|!)|([(),]))/y;

/** The tokens, or undefined for a text with anything else (a string with an escape, a single quote). */
function lex(text: string): Token[] | undefined {
  const out: Token[] = [];
  const s = text.trim();
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < s.length) {
    const m = TOKEN.exec(s);
    if (m === null) return undefined;
    if (m[1] !== undefined) out.push({ t: 'word', v: m[1] });
    else if (m[2] !== undefined) out.push({ t: 'string', v: m[2] });
    else if (m[3] !== undefined) out.push({ t: 'number' });
    else if (m[4] !== undefined) out.push({ t: 'op', v: m[4] });
    else out.push({ t: m[5] as '(' | ')' | ',' });
  }
  return out;
}

/** Terms joined by one kind of conjunction, up to `)` or the end; mixed conjunctions are unknown. */
function group(
  tokens: readonly Token[],
  from: number,
  depth: number,
  names: Set<string>,
): { node: Node; at: number } | undefined {
  const children: Node[] = [];
  let joiner: string | undefined;
  let mixed = false;
  let at = from;
  for (;;) {
    const t = term(tokens, at, depth, names);
    if (!t) return undefined;
    children.push(t.node);
    at = t.at;
    const next = tokens[at];
    if (next?.t !== 'word' || (next.v !== 'and' && next.v !== 'or')) break;
    if (joiner !== undefined && joiner !== next.v) mixed = true;
    joiner = next.v;
    at++;
  }
  if (mixed) return { node: UNKNOWN, at };
  const only = children[0];
  if (children.length === 1 && only) return { node: only, at };
  return { node: { kind: joiner === 'or' ? 'any' : 'all', children }, at };
}

/** One condition, a function call (unknown) or a parenthesised group (one level, as actions-core reads them). */
function term(
  tokens: readonly Token[],
  at: number,
  depth: number,
  names: Set<string>,
): { node: Node; at: number } | undefined {
  const first = tokens[at];
  if (first === undefined) return undefined;
  if (first.t === '(') {
    if (depth > 0) return undefined;
    const inner = group(tokens, at + 1, depth + 1, names);
    if (!inner || tokens[inner.at]?.t !== ')') return undefined;
    return { node: inner.node, at: inner.at + 1 };
  }
  if (first.t === 'op' && first.v === '!') {
    const call = functionCall(tokens, at + 1);
    return call === undefined ? undefined : { node: UNKNOWN, at: call };
  }
  if (first.t !== 'word') return undefined;
  if (first.v === 'contains' || first.v === 'match') {
    const call = functionCall(tokens, at);
    return call === undefined ? undefined : { node: UNKNOWN, at: call };
  }
  const op = tokens[at + 1];
  const value = tokens[at + 2];
  if (op?.t !== 'op' || op.v === '!' || value === undefined) return undefined;
  if (value.t !== 'string' && value.t !== 'word' && value.t !== 'number') return undefined;
  const next = at + 3;
  const field = first.v;
  // A bare word is a string to actions-core, except these.
  const text =
    value.t === 'string' ? value.v : value.t === 'word' && !NOT_TEXT.has(value.v) ? value.v : undefined;
  if ((field !== 'type' && field !== 'event') || (op.v !== '=' && op.v !== '!=') || text === undefined)
    return { node: UNKNOWN, at: next };
  if (field === 'event' && op.v === '=') names.add(text);
  return { node: { kind: 'is', field, equal: op.v === '=', value: text }, at: next };
}

/** `contains(field, "text")` or `match(field, "glob*")` starting at `at`: where it ends, or undefined. */
function functionCall(tokens: readonly Token[], at: number): number | undefined {
  const name = tokens[at];
  if (name?.t !== 'word' || (name.v !== 'contains' && name.v !== 'match')) return undefined;
  const shape = ['(', 'word', ',', 'string', ')'];
  return shape.every((t, i) => tokens[at + 1 + i]?.t === t) ? at + 1 + shape.length : undefined;
}
