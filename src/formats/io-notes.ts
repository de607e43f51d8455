/**
 * Parse notes: human-readable remarks a parser makes about an input it accepted, e.g.
 * "dropped 3 events with success=0". They travel with the History without widening the
 * `FormatModule.read` contract (which returns a bare History).
 *
 * Takes: a History and its notes. Gives: the notes back for that exact History object.
 * Invariant: notes only describe things that were accounted for (never hide a parse error);
 * a History without notes has an empty list.
 */

import type { History } from '../history/model.ts';

// Keyed by object identity: Histories are immutable, so notes attached to one stay true of it.
const NOTES = new WeakMap<History, readonly string[]>();

/** Attaches `notes` to `h` (replacing earlier ones) and returns `h`, for `return attachNotes(b.build(), notes)`. */
export function attachNotes(h: History, notes: readonly string[]): History {
  if (notes.length > 0) NOTES.set(h, Object.freeze(notes.slice()));
  else NOTES.delete(h);
  return h;
}

/** The notes a parser attached to `h`; empty if none. */
export function notesOf(h: History): readonly string[] {
  return NOTES.get(h) ?? [];
}
