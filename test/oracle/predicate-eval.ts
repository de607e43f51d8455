/**
 * The predicate oracle's own evaluator of the predicate language (grammar and semantics as
 * written in src/history/predicate.ts's header, re-implemented here from that text alone: no
 * code is shared, so a misreading of the grammar in src/ cannot hide in both).
 *
 * Takes: a predicate's text and one row version (key, value), value null for an absent row.
 * Gives: `rowMatches(text, key, value)`, true iff the row is present and the predicate holds.
 * Invariant: tiny and slow on purpose (it re-tokenises on every call; the oracle's histories
 * have a handful of rows); throws on text it cannot parse, which the generator never makes.
 *
 * Semantics (predicate.ts's header): an absent row matches nothing (not even `true` or a `not`);
 * integers compare as integers, strings as strings, an integer against a string is false for
 * every comparison (`!=` included), `%` of a string has no value (every comparison with it is
 * false), `%` keeps the sign of the dividend, `a between b and c` is `a >= b and a <= c`.
 */

type Scalar = number | string;
/** A term evaluated on the row: undefined when it has no value (`%` of a string). */
type Val = Scalar | undefined;

/** Token kinds: words (keywords, key, value), numbers, strings, punctuation. */
interface Tok { t: 'word' | 'num' | 'str' | 'punct'; v: string | number }

function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    const two = text.slice(i, i + 2);
    if (two === '<=' || two === '>=' || two === '!=' || two === '<>') { out.push({ t: 'punct', v: two === '<>' ? '!=' : two }); i += 2; continue; }
    if ('()=<>%'.includes(c)) { out.push({ t: 'punct', v: c }); i++; continue; }
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') { if (j >= text.length) throw new Error(`oracle predicate: unterminated string in ${text}`); j += text[j] === '\\' ? 2 : 1; }
      out.push({ t: 'str', v: JSON.parse(text.slice(i, j + 1)) as string });
      i = j + 1;
      continue;
    }
    const num = /^-?\d+/.exec(text.slice(i));
    if (num !== null) { out.push({ t: 'num', v: Number(num[0]) }); i += num[0].length; continue; }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (word === null) throw new Error(`oracle predicate: unexpected ${c} in ${text}`);
    out.push({ t: 'word', v: word[0] });
    i += word[0].length;
  }
  return out;
}

/** Evaluates the token list as an expression on one present row (recursive descent). */
class Eval {
  private i = 0;
  constructor(private readonly toks: Tok[], private readonly key: Scalar, private readonly value: Scalar) {}

  private peekWord(w: string): boolean {
    const t = this.toks[this.i];
    return t !== undefined && t.t === 'word' && t.v === w;
  }

  private eat(kind: Tok['t'], v?: string): Tok {
    const t = this.toks[this.i];
    if (t === undefined || t.t !== kind || (v !== undefined && t.v !== v)) throw new Error(`oracle predicate: expected ${v ?? kind} at token ${this.i}`);
    this.i++;
    return t;
  }

  all(): boolean {
    const r = this.or();
    if (this.i !== this.toks.length) throw new Error('oracle predicate: trailing tokens');
    return r;
  }

  // Both operands are always evaluated (no short cut) so that a parse error cannot hide behind one.
  private or(): boolean {
    let r = this.and();
    while (this.peekWord('or')) { this.i++; const b = this.and(); r = r || b; }
    return r;
  }

  private and(): boolean {
    let r = this.not();
    while (this.peekWord('and')) { this.i++; const b = this.not(); r = r && b; }
    return r;
  }

  private not(): boolean {
    if (this.peekWord('not')) { this.i++; return !this.not(); }
    return this.atom();
  }

  private atom(): boolean {
    const t = this.toks[this.i];
    if (t?.t === 'punct' && t.v === '(') {
      this.i++;
      const r = this.or();
      this.eat('punct', ')');
      return r;
    }
    if (this.peekWord('true')) { this.i++; return true; }
    if (this.peekWord('false')) { this.i++; return false; }
    const a = this.term();
    if (this.peekWord('between')) {
      this.i++;
      const lo = this.term();
      this.eat('word', 'and');
      const hi = this.term();
      return cmp('>=', a, lo) && cmp('<=', a, hi);
    }
    const op = this.eat('punct').v as string;
    return cmp(op, a, this.term());
  }

  private term(): Val {
    const t = this.toks[this.i++];
    let x: Val;
    if (t === undefined) throw new Error('oracle predicate: missing term');
    if (t.t === 'word' && t.v === 'key') x = this.key;
    else if (t.t === 'word' && t.v === 'value') x = this.value;
    else if (t.t === 'num' || t.t === 'str') x = t.v;
    else throw new Error(`oracle predicate: bad term ${String(t.v)}`);
    const next = this.toks[this.i];
    if (next?.t === 'punct' && next.v === '%') {
      this.i++;
      const m = this.eat('num').v as number;
      x = typeof x === 'number' ? x % m : undefined;
    }
    return x;
  }
}

function cmp(op: string, a: Val, b: Val): boolean {
  if (a === undefined || b === undefined || typeof a !== typeof b) return false;
  switch (op) {
    case '=': return a === b;
    case '!=': return a !== b;
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    default: throw new Error(`oracle predicate: bad comparison ${op}`);
  }
}

/** Whether the row (key, value) is present (value not null) and satisfies the predicate text. */
export function rowMatches(text: string, key: Scalar, value: Scalar | null): boolean {
  if (value === null) return false;
  return new Eval(tokens(text), key, value).all();
}
