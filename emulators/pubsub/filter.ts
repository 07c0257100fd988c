/**
 * Pub/Sub's subscription filter language, on attributes only:
 * `attributes.k = "v"`, `attributes.k != "v"`, `attributes:k`, `hasPrefix(attributes.k, "p")`,
 * `NOT`/`-`, `AND`, `OR` and parentheses. Parsed once at subscription creation, evaluated per message.
 */

export type Attributes = Readonly<Record<string, string>>;
export type FilterFn = (attributes: Attributes) => boolean;

export const MAX_FILTER_BYTES = 256;

interface Token {
  readonly kind: 'word' | 'string' | 'punct';
  readonly text: string;
  readonly pos: number;
}

class FilterSyntaxError extends Error {}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) j++;
        text += src[j];
        j++;
      }
      if (j >= src.length) throw new FilterSyntaxError(`unterminated string at position ${i}`);
      tokens.push({ kind: 'string', text, pos: i });
      i = j + 1;
    } else if (c === '!' && src[i + 1] === '=') {
      tokens.push({ kind: 'punct', text: '!=', pos: i });
      i += 2;
    } else if ('()=:,.-'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, pos: i });
      i++;
    } else if (/[A-Za-z0-9_]/.test(c)) {
      // A hyphen inside a name is part of it (`attributes.ce-type`, no quotes needed, as in
      // Google's filters); a leading one stays the negation operator.
      let j = i;
      while (
        j < src.length &&
        (/[A-Za-z0-9_]/.test(src[j] as string) || (src[j] === '-' && /[A-Za-z0-9_]/.test(src[j + 1] ?? '')))
      )
        j++;
      tokens.push({ kind: 'word', text: src.slice(i, j), pos: i });
      i = j;
    } else {
      throw new FilterSyntaxError(`unexpected character '${c}' at position ${i}`);
    }
  }
  return tokens;
}

/** The attribute itself, never an inherited name (`constructor`, `toString`) of the object. */
const own = (a: Attributes, key: string): string | undefined => (Object.hasOwn(a, key) ? a[key] : undefined);

class Parser {
  private readonly tokens: Token[];
  private i = 0;

  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  parse(): FilterFn {
    const fn = this.or();
    const extra = this.tokens[this.i];
    if (extra) throw new FilterSyntaxError(`unexpected '${extra.text}' at position ${extra.pos}`);
    return fn;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private isWord(word: string): boolean {
    const t = this.peek();
    return t?.kind === 'word' && t.text === word;
  }

  private expect(text: string): void {
    const t = this.peek();
    if (!t || t.kind === 'string' || t.text !== text) {
      throw new FilterSyntaxError(`expected '${text}'${t ? ` at position ${t.pos}` : ' at end of filter'}`);
    }
    this.i++;
  }

  private or(): FilterFn {
    const parts = [this.and()];
    while (this.isWord('OR')) {
      this.i++;
      parts.push(this.and());
    }
    if (parts.length === 1) return parts[0] as FilterFn;
    return (a) => parts.some((p) => p(a));
  }

  private and(): FilterFn {
    const parts = [this.unary()];
    while (this.isWord('AND')) {
      this.i++;
      parts.push(this.unary());
    }
    if (parts.length === 1) return parts[0] as FilterFn;
    return (a) => parts.every((p) => p(a));
  }

  private unary(): FilterFn {
    const t = this.peek();
    if ((t?.kind === 'word' && t.text === 'NOT') || (t?.kind === 'punct' && t.text === '-')) {
      this.i++;
      const inner = this.unary();
      return (a) => !inner(a);
    }
    return this.primary();
  }

  private key(): string {
    const t = this.peek();
    if (!t || (t.kind !== 'word' && t.kind !== 'string')) {
      throw new FilterSyntaxError(`expected an attribute name${t ? ` at position ${t.pos}` : ''}`);
    }
    this.i++;
    return t.text;
  }

  private string(): string {
    const t = this.peek();
    if (t?.kind !== 'string') {
      throw new FilterSyntaxError(`expected a quoted string${t ? ` at position ${t.pos}` : ''}`);
    }
    this.i++;
    return t.text;
  }

  private primary(): FilterFn {
    const t = this.peek();
    if (!t) throw new FilterSyntaxError('unexpected end of filter');
    if (t.kind === 'punct' && t.text === '(') {
      this.i++;
      const inner = this.or();
      this.expect(')');
      return inner;
    }
    if (t.kind === 'word' && t.text === 'hasPrefix') {
      this.i++;
      this.expect('(');
      this.expect('attributes');
      this.expect('.');
      const key = this.key();
      this.expect(',');
      const prefix = this.string();
      this.expect(')');
      return (a) => own(a, key)?.startsWith(prefix) === true;
    }
    if (t.kind === 'word' && t.text === 'attributes') {
      this.i++;
      const sep = this.peek();
      if (sep?.kind === 'punct' && sep.text === ':') {
        this.i++;
        const key = this.key();
        return (a) => Object.hasOwn(a, key);
      }
      this.expect('.');
      const key = this.key();
      const op = this.peek();
      if (op?.kind === 'punct' && op.text === '=') {
        this.i++;
        const value = this.string();
        return (a) => own(a, key) === value;
      }
      if (op?.kind === 'punct' && op.text === '!=') {
        this.i++;
        const value = this.string();
        return (a) => own(a, key) !== value;
      }
      throw new FilterSyntaxError(
        `expected '=' or '!='${op ? ` at position ${op.pos}` : ' at end of filter'}`,
      );
    }
    throw new FilterSyntaxError(`unexpected '${t.text}' at position ${t.pos}`);
  }
}

/** Parses a filter; returns the predicate or a human-readable syntax error. */
export function compileFilter(src: string): { ok: true; fn: FilterFn } | { ok: false; error: string } {
  if (src.trim() === '') return { ok: true, fn: () => true };
  try {
    return { ok: true, fn: new Parser(tokenize(src)).parse() };
  } catch (err) {
    if (err instanceof FilterSyntaxError) return { ok: false, error: err.message };
    throw err;
  }
}
