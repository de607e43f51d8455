/**
 * The abstract syntax of transaction programs (ANODE, Nagar & Jagannathan CONCUR 2018, §3.1).
 *
 * Takes: nothing (types only). Gives: `Program` = tables (fields, primary key), transactions
 * (parameters, a statement block) and isolation declarations, as `parse.ts` builds them.
 * Invariant (established by the parser): every name is resolved — a `field` node names a field of
 * the statement's table, a `var` node a parameter or a local assigned earlier on every path that
 * reaches it, a `dot` node a row-set or row variable whose SELECT lists that field; every SQL
 * statement has a program-wide unique `id` (its index in `Program.stmts`).
 */

export interface Loc {
  line: number;
  col: number;
}

export type ArithOp = '+' | '-' | '*' | '/';
export type CmpOp = '<' | '<=' | '=' | '<>' | '>' | '>=';
export type Aggregate = 'MIN' | 'MAX' | 'COUNT' | 'SUM';

export type Expr =
  | { k: 'int'; v: number }
  | { k: 'null' }
  /** A parameter or scalar local, or the single selected field of a row-set variable. */
  | { k: 'var'; name: string }
  /** A field of the record a WHERE clause is evaluated on. */
  | { k: 'field'; name: string }
  /** `v.f`: field f of a row-set variable (its first row) or of a FOREACH row variable. */
  | { k: 'dot'; name: string; field: string }
  | { k: 'bin'; op: ArithOp; l: Expr; r: Expr }
  | { k: 'neg'; e: Expr };

export type Pred =
  | { k: 'true' }
  | { k: 'cmp'; op: CmpOp; l: Expr; r: Expr }
  /** `v IS NULL`: the row-set v is empty, or the scalar v is NULL. */
  | { k: 'isnull'; name: string; neg: boolean }
  | { k: 'and' | 'or'; l: Pred; r: Pred }
  | { k: 'not'; p: Pred };

export type SqlStmt =
  | { k: 'select'; id: number; loc: Loc; table: string; fields: string[]; agg: Aggregate | null; target: string; where: Pred }
  | { k: 'update'; id: number; loc: Loc; table: string; sets: { field: string; e: Expr }[]; where: Pred }
  | { k: 'insert'; id: number; loc: Loc; table: string; values: { field: string; e: Expr }[] }
  | { k: 'delete'; id: number; loc: Loc; table: string; where: Pred };

export type Stmt =
  | SqlStmt
  | { k: 'let'; loc: Loc; target: string; e: Expr }
  | { k: 'if'; loc: Loc; cond: Pred; then: Stmt[]; else: Stmt[] }
  | { k: 'foreach'; loc: Loc; target: string; over: string; body: Stmt[] }
  | { k: 'skip'; loc: Loc };

export interface Table {
  name: string;
  loc: Loc;
  fields: string[];
  /** The primary key, a non-empty subset of `fields`, in declaration order. */
  key: string[];
}

/** What a variable holds; `depth` = number of enclosing FOREACH loops where it is assigned. */
export type VarInfo =
  | { kind: 'param'; depth: 0 }
  | { kind: 'scalar'; depth: number; assignments: number }
  /** Rows of `table` selected by statement `stmt` (fields = the SELECT list). */
  | { kind: 'rows'; depth: number; assignments: number; table: string; stmt: number; fields: string[] }
  /** The FOREACH variable over row-set `over`. */
  | { kind: 'row'; depth: number; table: string; over: string; fields: string[] };

export interface Transaction {
  name: string;
  loc: Loc;
  params: string[];
  /**
   * `REQUIRES p`: the parameters' domain, a predicate over the parameters only (e.g.
   * `Amount > 0`); `{ k: 'true' }` when the program says nothing. Instances outside it are not
   * executions of the program: the encoding constrains each slot's parameters with it, and
   * confirmation refuses witnesses that break it.
   */
  requires: Pred;
  body: Stmt[];
  vars: Map<string, VarInfo>;
}

export type ModelName = 'ec' | 'cc' | 'pc' | 'psi' | 'si' | 'ser';
export const MODEL_NAMES: readonly ModelName[] = ['ec', 'cc', 'pc', 'psi', 'si', 'ser'];

export interface Program {
  source: string;
  tables: Table[];
  txns: Transaction[];
  /** Every SQL statement, by id, with the transaction it belongs to. */
  stmts: { stmt: SqlStmt; txn: string }[];
  /** `ISOLATION T model;`: per-transaction models, overriding the default for T. */
  isolation: Map<string, ModelName>;
  /** `SERIALIZABLE T1 WITH T2;`: selective serializability between instances of T1 and T2. */
  serializablePairs: [string, string][];
}
