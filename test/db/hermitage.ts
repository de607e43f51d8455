/**
 * Hermitage's published rows, transcribed for the probe's test: which anomalies each isolation
 * level of PostgreSQL and MySQL/InnoDB prevents.
 *
 * Source: Martin Kleppmann, Hermitage, github.com/ept/hermitage: README.md's summary table,
 * postgres.md (PostgreSQL 9.3.5) and mysql.md (MySQL 5.6.21). true = prevented (✓), false =
 * allowed (—). Only the item-level columns: the predicate ones (PMP, G2) are in test/db/probe-predicates.test.ts. Hermitage's
 * "R/O" for MySQL repeatable read (prevented in a read-only transaction, allowed when the reader
 * writes) is split over our two rows: `G-single` (the read-only test) and `G-single-write` (the
 * item form of its write-predicate test); PostgreSQL's repeatable read prevents both
 * (postgres.md, "test using write predicate": the delete fails with a serialization error).
 */

export type HermitageRow = Record<'G0' | 'G1a' | 'G1b' | 'G1c' | 'OTV' | 'P4' | 'G-single' | 'G-single-write' | 'G2-item', boolean>;

export const HERMITAGE_POSTGRES: Record<string, HermitageRow> = {
  'read-committed': { G0: true, G1a: true, G1b: true, G1c: true, OTV: true, P4: false, 'G-single': false, 'G-single-write': false, 'G2-item': false },
  'repeatable-read': { G0: true, G1a: true, G1b: true, G1c: true, OTV: true, P4: true, 'G-single': true, 'G-single-write': true, 'G2-item': false },
  'serializable': { G0: true, G1a: true, G1b: true, G1c: true, OTV: true, P4: true, 'G-single': true, 'G-single-write': true, 'G2-item': true },
};

export const HERMITAGE_MYSQL: Record<string, HermitageRow> = {
  'read-uncommitted': { G0: true, G1a: false, G1b: false, G1c: false, OTV: false, P4: false, 'G-single': false, 'G-single-write': false, 'G2-item': false },
  'read-committed': { G0: true, G1a: true, G1b: true, G1c: true, OTV: true, P4: false, 'G-single': false, 'G-single-write': false, 'G2-item': false },
  'repeatable-read': { G0: true, G1a: true, G1b: true, G1c: true, OTV: true, P4: false, 'G-single': true, 'G-single-write': false, 'G2-item': false },
  'serializable': { G0: true, G1a: true, G1b: true, G1c: true, OTV: true, P4: true, 'G-single': true, 'G-single-write': true, 'G2-item': true },
};
