/**
 * The values the EDN and JSON readers produce: one small vocabulary for both, so the Jepsen
 * history assembler (elle-common.ts) reads either without caring which syntax it came from.
 *
 * Takes: nothing (types and constructors). Gives: the tree representation of one parsed form:
 *   null (nil / null), boolean, number (a safe integer), bigint (an integer beyond 2^53),
 *   string, `Kw` (an EDN keyword, interned: compare with ===), `Sym` (an EDN symbol),
 *   `Flt` (any non-integer number: kept apart so `1.0` is never mistaken for the integer 1),
 *   unknown[] (EDN vector or list, JSON array), `Obj` (EDN map / JSON object), `EdnSet`.
 * Invariant: integers are exact (`io-int` normalisation: a safe integer is always a number,
 * never a bigint), so interning them never splits or merges values.
 */

/** An EDN keyword such as `:ok`; `name` excludes the colon. One instance per name. */
export class Kw {
  private constructor(readonly name: string) {}
  private static readonly table = new Map<string, Kw>();
  static of(name: string): Kw {
    let k = Kw.table.get(name);
    if (k === undefined) {
      k = new Kw(name);
      Kw.table.set(name, k);
    }
    return k;
  }
  toString(): string {
    return `:${this.name}`;
  }
}

/** An EDN symbol other than nil / true / false. */
export class Sym {
  constructor(readonly name: string) {}
  toString(): string {
    return this.name;
  }
}

/** A non-integer number (EDN float, ratio, ##Inf; JSON number with a fraction or exponent). */
export class Flt {
  constructor(readonly value: number, readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * A map / object as a flat key-value array `[k0, v0, k1, v1, ...]`: Jepsen op maps have half a
 * dozen entries, so a linear scan beats building a Map per operation.
 */
export class Obj {
  /** `line`: where the map opens in the source (1-based), for messages. */
  constructor(readonly kv: unknown[], readonly line = -1) {}
}

/** An EDN set `#{...}`. */
export class EdnSet {
  constructor(readonly items: unknown[]) {}
}

/**
 * The value of field `name` in `o`, matching either the keyword `:name` (EDN) or the string
 * `"name"` (JSON); undefined if absent.
 */
export function field(o: Obj, name: string): unknown {
  const kw = Kw.of(name);
  const kv = o.kv;
  for (let i = 0; i < kv.length; i += 2) {
    const k = kv[i];
    // Keywords are interned, so identity decides for EDN; JSON keys are plain strings.
    if (k === kw || k === name) return kv[i + 1];
  }
  return undefined;
}

/** The name of a keyword, or of a string with an optional leading colon (JSON spelling of a keyword). */
export function nameOf(x: unknown): string | undefined {
  if (x instanceof Kw) return x.name;
  if (typeof x === 'string') return x.charCodeAt(0) === 58 ? x.slice(1) : x;
  return undefined;
}

/** A short rendering of a parsed value for error messages (bounded length). */
export function show(x: unknown, budget = 60): string {
  let s: string;
  if (x === null) s = 'nil';
  else if (x === undefined) s = 'nothing';
  else if (typeof x === 'string') s = JSON.stringify(x);
  else if (Array.isArray(x)) s = `[${x.map((e) => show(e, 20)).join(' ')}]`;
  else if (x instanceof Obj) {
    const parts: string[] = [];
    for (let i = 0; i < x.kv.length; i += 2) parts.push(`${show(x.kv[i], 20)} ${show(x.kv[i + 1], 20)}`);
    s = `{${parts.join(', ')}}`;
  } else if (x instanceof EdnSet) s = `#{${x.items.map((e) => show(e, 20)).join(' ')}}`;
  else s = String(x);
  return s.length > budget ? `${s.slice(0, budget - 3)}...` : s;
}
