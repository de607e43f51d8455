/**
 * The predicate language of predicate reads (`select(P)`, `count(P)`; docs/formats.md,
 * "Predicates").
 *
 * Takes: a predicate's text, e.g. `value % 3 = 0`, `key >= 10 and key < 20`,
 * `not (value = "x" or value between 1 and 5)`. Gives: `parsePredicate(text)`, a `Predicate`
 * that `matches(p, key, value)` evaluates on one version of one row, and `predicateText(p)`, its
 * canonical text. A syntax error is a `PredicateSyntaxError` naming the 1-based column and what
 * was expected; callers (parsers) wrap it in an InputError with the file and line.
 *
 * Grammar (case-sensitive keywords, blanks between tokens ignored):
 *   expr    := and ("or" and)*
 *   and     := unary ("and" unary)*
 *   unary   := "not" unary | atom
 *   atom    := "(" expr ")" | "true" | "false"
 *            | term cmp term | term "between" term "and" term
 *   term    := ("key" | "value" | integer | string) ("%" integer)?
 *   cmp     := "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
 *   integer := -?[0-9]+ (a safe integer)    string := JSON string literal "..."
 *
 * Semantics, on a row version (key, value) where value null is an absent row:
 * - An absent row (not yet inserted, or deleted) matches no predicate, whatever it says
 *   (`not`, `true` included): a predicate read returns present rows only (Adya's version set
 *   holds the unborn/dead version, which is never in the result).
 * - `key` / `value` are the row's key and value as written in the history: integers compare as
 *   integers, strings as strings (UTF-16 code units, as JavaScript does); a comparison between an
 *   integer and a string is false (so is its `!=`: SQL's "unknown"), and so is `x % m` of a
 *   string. `%` is the remainder with the sign of the dividend (JavaScript's and SQL's); `% 0`
 *   is a syntax error.
 * - `a between b and c` is `a >= b and a <= c`.
 * Invariant: `matches` is total (never throws) and pure; `predicateText(parsePredicate(s))`
 * parses back to an equal predicate.
 */

export type Scalar = number | string;

export type Term =
  | { readonly kind: 'key' | 'value'; readonly mod?: number }
  | { readonly kind: 'const'; readonly value: Scalar; readonly mod?: number };

export type Cmp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type Predicate =
  | { readonly op: 'true' | 'false' }
  | { readonly op: 'not'; readonly arg: Predicate }
  | { readonly op: 'and' | 'or'; readonly args: readonly Predicate[] }
  | { readonly op: 'cmp'; readonly cmp: Cmp; readonly left: Term; readonly right: Term }
  | { readonly op: 'between'; readonly arg: Term; readonly low: Term; readonly high: Term };

export class PredicateSyntaxError extends Error {
  constructor(readonly column: number, readonly detail: string) {
    super(`column ${column}: ${detail}`);
    this.name = 'PredicateSyntaxError';
  }
}

/** Parses a predicate; throws PredicateSyntaxError (column, what was expected) on bad text. */
export function parsePredicate(text: string): Predicate {
  const p = new Parser(text);
  const e = p.expr();
  p.skip();
  if (p.pos < text.length) p.fail(`expected "and", "or" or the end of the predicate, found ${JSON.stringify(text.slice(p.pos, p.pos + 12))}`);
  return e;
}

/** Whether the row version (key, value) matches p; value null is an absent row (never matches). */
export function matches(p: Predicate, key: Scalar, value: Scalar | null): boolean {
  if (value === null) return false;
  return evaluate(p, key, value);
}

function evaluate(p: Predicate, key: Scalar, value: Scalar): boolean {
  switch (p.op) {
    case 'true': return true;
    case 'false': return false;
    case 'not': return !evaluate(p.arg, key, value);
    case 'and': return p.args.every((a) => evaluate(a, key, value));
    case 'or': return p.args.some((a) => evaluate(a, key, value));
    case 'cmp': return compare(p.cmp, term(p.left, key, value), term(p.right, key, value));
    case 'between': {
      const a = term(p.arg, key, value);
      return compare('>=', a, term(p.low, key, value)) && compare('<=', a, term(p.high, key, value));
    }
  }
}

/** A term's value on the row; undefined when it has none (`%` of a string). */
function term(t: Term, key: Scalar, value: Scalar): Scalar | undefined {
  const x = t.kind === 'const' ? t.value : t.kind === 'key' ? key : value;
  if (t.mod === undefined) return x;
  if (typeof x !== 'number') return undefined;
  return x % t.mod;
}

function compare(cmp: Cmp, a: Scalar | undefined, b: Scalar | undefined): boolean {
  // Mixed types (or a missing term) are SQL's "unknown": every comparison is false, `!=` too.
  if (a === undefined || b === undefined || typeof a !== typeof b) return false;
  switch (cmp) {
    case '=': return a === b;
    case '!=': return a !== b;
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
  }
}

/** The canonical text of p (fully parenthesised where needed; parses back to an equal p). */
export function predicateText(p: Predicate): string {
  switch (p.op) {
    case 'true': case 'false': return p.op;
    case 'not': return `not ${wrap(p.arg)}`;
    case 'and': case 'or': return p.args.map(wrap).join(` ${p.op} `);
    case 'cmp': return `${termText(p.left)} ${p.cmp} ${termText(p.right)}`;
    case 'between': return `${termText(p.arg)} between ${termText(p.low)} and ${termText(p.high)}`;
  }
}

function wrap(p: Predicate): string {
  return p.op === 'and' || p.op === 'or' || p.op === 'between' ? `(${predicateText(p)})` : predicateText(p);
}

function termText(t: Term): string {
  const base = t.kind === 'const' ? JSON.stringify(t.value) : t.kind;
  return t.mod === undefined ? base : `${base} % ${t.mod}`;
}

const CMPS: readonly string[] = ['<=', '>=', '!=', '<>', '=', '<', '>'];

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(detail: string): never {
    throw new PredicateSyntaxError(this.pos + 1, detail);
  }

  skip(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos]!)) this.pos++;
  }

  /** Consumes keyword w if it comes next as a whole word. */
  word(w: string): boolean {
    this.skip();
    if (!this.s.startsWith(w, this.pos)) return false;
    const after = this.s[this.pos + w.length];
    if (after !== undefined && /[A-Za-z0-9_]/.test(after)) return false;
    this.pos += w.length;
    return true;
  }

  expr(): Predicate {
    const args = [this.and()];
    while (this.word('or')) args.push(this.and());
    return args.length === 1 ? args[0]! : { op: 'or', args };
  }

  and(): Predicate {
    const args = [this.unary()];
    while (this.word('and')) args.push(this.unary());
    return args.length === 1 ? args[0]! : { op: 'and', args };
  }

  unary(): Predicate {
    if (this.word('not')) return { op: 'not', arg: this.unary() };
    return this.atom();
  }

  atom(): Predicate {
    this.skip();
    if (this.s[this.pos] === '(') {
      this.pos++;
      const e = this.expr();
      this.skip();
      if (this.s[this.pos] !== ')') this.fail(`expected ")", found ${this.found()}`);
      this.pos++;
      return e;
    }
    if (this.word('true')) return { op: 'true' };
    if (this.word('false')) return { op: 'false' };
    const left = this.term();
    if (this.word('between')) {
      const low = this.term();
      if (!this.word('and')) this.fail(`expected "and" after "between ...", found ${this.found()}`);
      return { op: 'between', arg: left, low, high: this.term() };
    }
    this.skip();
    const c = CMPS.find((x) => this.s.startsWith(x, this.pos));
    if (c === undefined) this.fail(`expected a comparison (= != < <= > >=) or "between", found ${this.found()}`);
    this.pos += c.length;
    return { op: 'cmp', cmp: c === '<>' ? '!=' : (c as Cmp), left, right: this.term() };
  }

  term(): Term {
    this.skip();
    let t: Term;
    if (this.word('key')) t = { kind: 'key' };
    else if (this.word('value')) t = { kind: 'value' };
    else if (this.s[this.pos] === '"') t = { kind: 'const', value: this.string() };
    else {
      const n = this.integer();
      if (n === undefined) this.fail(`expected key, value, an integer or a "string", found ${this.found()}`);
      t = { kind: 'const', value: n };
    }
    this.skip();
    if (this.s[this.pos] === '%') {
      this.pos++;
      this.skip();
      const m = this.integer();
      if (m === undefined) this.fail(`expected an integer after "%", found ${this.found()}`);
      if (m === 0) this.fail('the modulus of "%" must not be 0');
      t = { ...t, mod: m };
    }
    return t;
  }

  integer(): number | undefined {
    const m = /^-?[0-9]+/.exec(this.s.slice(this.pos));
    if (m === null) return undefined;
    const n = Number(m[0]);
    if (!Number.isSafeInteger(n)) this.fail(`integer ${m[0]} is not within ±2^53`);
    this.pos += m[0].length;
    return Object.is(n, -0) ? 0 : n;
  }

  string(): string {
    // A JSON string literal: find its closing quote (skipping escapes), then let JSON decode it.
    let j = this.pos + 1;
    while (j < this.s.length && this.s[j] !== '"') j += this.s[j] === '\\' ? 2 : 1;
    if (j >= this.s.length) this.fail('unterminated string');
    const lit = this.s.slice(this.pos, j + 1);
    try {
      const v = JSON.parse(lit) as string;
      this.pos = j + 1;
      return v;
    } catch {
      return this.fail(`bad string literal ${lit}`);
    }
  }

  found(): string {
    return this.pos >= this.s.length ? 'the end of the predicate' : JSON.stringify(this.s.slice(this.pos, this.pos + 12));
  }
}
