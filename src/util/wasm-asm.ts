/**
 * A tiny WebAssembly assembler: functions written in the flat (stack) form of the WebAssembly
 * text format, a small subset of it, turned into the bytes of a module.
 *
 * Takes: function definitions (parameter and local names, a body in flat WAT text). Gives: the
 * bytes of a module that imports one memory (`env.memory`) and exports every function.
 * Why: the kernels (prune/reach-wasm.ts, solve/kahn.ts, solve/contract-wasm.ts,
 * sat/csr-wasm.ts) run as WebAssembly, which V8 compiles at once (Liftoff) instead of
 * interpreting until TurboFan has feedback. Their source stays readable text in each kernel's file; the bytes
 * that run are assembled ahead of time into a `*-bytes.ts` file beside each kernel (assembling in
 * a fresh process cost ~3 ms), and the tests check those bytes are what this assembler makes.
 * A leaf module (imports nothing).
 * The subset: i32 and v128 locals; block / loop / if / else / end with optional $labels (br and
 * br_if name them); local.get/set/tee by $name; call by $name; i32 arithmetic and comparisons;
 * i32 and v128 loads and stores with `offset=N`; memory.copy; a few i32x4 / v128 operations.
 * Every block is void (no block results). An unknown instruction or name is an Error at
 * assembly, and WebAssembly.Module validates the result, so a typo never runs.
 */

export type WasmType = 'i32' | 'v128';

export interface WatFunc {
  name: string;
  /** Parameter names, `name` (i32) or `name:v128`. */
  params: string[];
  result: WasmType | null;
  locals: string[];
  /** Flat WAT instructions; `;;` starts a comment. */
  body: string;
}

const TYPE_CODE: Record<WasmType, number> = { i32: 0x7f, v128: 0x7b };

/** Instructions without immediates: their opcode bytes. */
const PLAIN: Record<string, number[]> = {
  'else': [0x05], 'end': [0x0b], 'return': [0x0f], 'drop': [0x1a], 'select': [0x1b],
  'i32.eqz': [0x45], 'i32.eq': [0x46], 'i32.ne': [0x47], 'i32.lt_s': [0x48], 'i32.lt_u': [0x49],
  'i32.gt_s': [0x4a], 'i32.gt_u': [0x4b], 'i32.le_s': [0x4c], 'i32.le_u': [0x4d], 'i32.ge_s': [0x4e], 'i32.ge_u': [0x4f],
  'i32.add': [0x6a], 'i32.sub': [0x6b], 'i32.mul': [0x6c], 'i32.and': [0x71], 'i32.or': [0x72], 'i32.xor': [0x73],
  'i32.shl': [0x74], 'i32.shr_s': [0x75], 'i32.shr_u': [0x76],
  // Bulk memory (0xfc prefix): memory.copy dst src len, on memory 0.
  'memory.copy': [0xfc, 10, 0x00, 0x00],
  // SIMD (0xfd prefix, then the opcode as unsigned LEB128).
  'i32x4.splat': [0xfd, 0x11], 'i32x4.lt_s': [0xfd, 0x39], 'v128.or': [0xfd, 0x50], 'v128.any_true': [0xfd, 0x53],
  'i32x4.min_s': [0xfd, 0xb6, 0x01],
};

/** Memory instructions: opcode bytes and the natural alignment (log2 bytes). */
const MEMORY: Record<string, { op: number[]; align: number }> = {
  'i32.load': { op: [0x28], align: 2 }, 'i32.load8_u': { op: [0x2d], align: 0 },
  'i32.store': { op: [0x36], align: 2 }, 'i32.store8': { op: [0x3a], align: 0 },
  'v128.load': { op: [0xfd, 0x00], align: 4 }, 'v128.store': { op: [0xfd, 0x0b], align: 4 },
};

const BLOCKS: Record<string, number> = { block: 0x02, loop: 0x03, if: 0x04 };
const BRANCHES: Record<string, number> = { br: 0x0c, br_if: 0x0d };
const LOCALS: Record<string, number> = { 'local.get': 0x20, 'local.set': 0x21, 'local.tee': 0x22 };

function uleb(n: number, out: number[]): void {
  if (!Number.isInteger(n) || n < 0) throw new Error(`wasm-asm: not an unsigned integer: ${n}`);
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
}

function sleb(n: number, out: number[]): void {
  if (!Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 32) throw new Error(`wasm-asm: not an i32: ${n}`);
  let x = n | 0;
  for (;;) {
    const b = x & 0x7f;
    x >>= 7;
    if ((x === 0 && (b & 0x40) === 0) || (x === -1 && (b & 0x40) !== 0)) { out.push(b); return; }
    out.push(b | 0x80);
  }
}

function nameBytes(s: string, out: number[]): void {
  const b = new TextEncoder().encode(s);
  uleb(b.length, out);
  for (const x of b) out.push(x);
}

function section(id: number, body: number[], out: number[]): void {
  out.push(id);
  uleb(body.length, out);
  for (const x of body) out.push(x);
}

function declared(names: string[]): { name: string; type: WasmType }[] {
  return names.map((s) => {
    const [name, type = 'i32'] = s.split(':');
    if (type !== 'i32' && type !== 'v128') throw new Error(`wasm-asm: unknown type ${type} of ${name}`);
    return { name: name!, type };
  });
}

/** The body's code: locals declaration, then instructions, then the final `end`. */
function assembleBody(f: WatFunc, funcIndex: Map<string, number>): number[] {
  const params = declared(f.params), locals = declared(f.locals);
  const index = new Map<string, number>();
  [...params, ...locals].forEach((v, i) => {
    if (index.has(v.name)) throw new Error(`wasm-asm: ${f.name}: ${v.name} declared twice`);
    index.set(v.name, i);
  });
  const out: number[] = [];
  // Locals, run-length encoded by type.
  const runs: { count: number; type: WasmType }[] = [];
  for (const l of locals) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.type === l.type) last.count++;
    else runs.push({ count: 1, type: l.type });
  }
  uleb(runs.length, out);
  for (const r of runs) { uleb(r.count, out); out.push(TYPE_CODE[r.type]); }

  const tokens = f.body.replace(/;;[^\n]*/g, ' ').split(/\s+/).filter((t) => t !== '');
  const labels: (string | null)[] = [];
  const where = (t: string): string => `wasm-asm: ${f.name}: ${t}`;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = (): string => {
      const x = tokens[++i];
      if (x === undefined) throw new Error(where(`${t} needs an operand`));
      return x;
    };
    if (t in BLOCKS) {
      const label = tokens[i + 1]?.startsWith('$') === true ? tokens[++i]! : null;
      labels.push(label);
      out.push(BLOCKS[t]!, 0x40);
    } else if (t === 'end') {
      if (labels.pop() === undefined) throw new Error(where('end without a block'));
      out.push(0x0b);
    } else if (t in BRANCHES) {
      const label = next();
      const at = labels.lastIndexOf(label);
      if (at < 0) throw new Error(where(`no enclosing block ${label}`));
      out.push(BRANCHES[t]!);
      uleb(labels.length - 1 - at, out);
    } else if (t in LOCALS) {
      const name = next();
      const k = index.get(name.replace(/^\$/, ''));
      if (k === undefined) throw new Error(where(`unknown local ${name}`));
      out.push(LOCALS[t]!);
      uleb(k, out);
    } else if (t === 'call') {
      const name = next();
      const k = funcIndex.get(name.replace(/^\$/, ''));
      if (k === undefined) throw new Error(where(`unknown function ${name}`));
      out.push(0x10);
      uleb(k, out);
    } else if (t === 'i32.const') {
      out.push(0x41);
      sleb(Number(next()), out);
    } else if (t in MEMORY) {
      const m = MEMORY[t]!;
      let offset = 0;
      if (tokens[i + 1]?.startsWith('offset=') === true) offset = Number(tokens[++i]!.slice(7));
      out.push(...m.op);
      uleb(m.align, out);
      uleb(offset, out);
    } else if (t in PLAIN) {
      out.push(...PLAIN[t]!);
    } else {
      throw new Error(where(`unknown instruction ${t}`));
    }
  }
  if (labels.length > 0) throw new Error(where('unclosed block'));
  out.push(0x0b);
  return out;
}

/** The module's bytes: imports memory env.memory (at least `minPages` pages), exports every function. */
export function assembleModule(funcs: WatFunc[], minPages = 1): Uint8Array<ArrayBuffer> {
  const funcIndex = new Map(funcs.map((f, i) => [f.name, i]));
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  // Types: one per function (duplicates are allowed).
  const types: number[] = [];
  uleb(funcs.length, types);
  for (const f of funcs) {
    types.push(0x60);
    const ps = declared(f.params);
    uleb(ps.length, types);
    for (const p of ps) types.push(TYPE_CODE[p.type]);
    if (f.result === null) types.push(0);
    else types.push(1, TYPE_CODE[f.result]);
  }
  section(1, types, out);
  const imports: number[] = [1];
  nameBytes('env', imports);
  nameBytes('memory', imports);
  imports.push(0x02, 0x00);
  uleb(minPages, imports);
  section(2, imports, out);
  const fsec: number[] = [];
  uleb(funcs.length, fsec);
  funcs.forEach((_, i) => uleb(i, fsec));
  section(3, fsec, out);
  const exports: number[] = [];
  uleb(funcs.length, exports);
  funcs.forEach((f, i) => { nameBytes(f.name, exports); exports.push(0x00); uleb(i, exports); });
  section(7, exports, out);
  const code: number[] = [];
  uleb(funcs.length, code);
  for (const f of funcs) {
    const body = assembleBody(f, funcIndex);
    uleb(body.length, code);
    for (const x of body) code.push(x);
  }
  section(10, code, out);
  return Uint8Array.from(out);
}
