/**
 * The cluster file (issue 24; schema/cluster.schema.json, docs/distributed.md): a cluster's
 * nodes and replicas, each with its URL and the shell commands that kill, start, pause and
 * resume it. scripts/cluster/*.sh write one; `polysi run --cluster FILE` reads it.
 *
 * Takes: the file's text and its name (for messages), or a path. Gives: a `ClusterFile`, or an
 * InputError naming the file, the line (for JSON syntax) or the field (`nodes[1].url`), and what
 * was expected.
 * Invariant: accepts what the schema accepts, and also refuses a name used twice (which a JSON
 * schema cannot say; test/run/cluster-file.test.ts runs both on the same cases); a command that is absent is absent (that fault is then not available for
 * that node), never an empty string; messages never show a URL's password.
 */

import { readFile } from 'node:fs/promises';
import { InputError } from '../history/errors.ts';
import { redactUrl } from './targets.ts';

/** The actions a cluster file may give a command for, in the schema's order. */
export const CLUSTER_COMMANDS = ['kill', 'start', 'pause', 'resume'] as const;
export type ClusterCommand = (typeof CLUSTER_COMMANDS)[number];

export interface ClusterMember {
  /** The label recorded as the node of the transactions run there ("n2"). */
  readonly name: string;
  readonly url: string;
  /** Shell commands (`sh -c`), by action; a missing one: that fault is not available here. */
  readonly kill?: string;
  readonly start?: string;
  readonly pause?: string;
  readonly resume?: string;
}

export interface ClusterFile {
  readonly name: string;
  readonly nodes: readonly ClusterMember[];
  readonly replicas: readonly ClusterMember[];
}

const MEMBER_FIELDS = new Set<string>(['name', 'url', ...CLUSTER_COMMANDS]);
const TOP_FIELDS = new Set(['name', 'nodes', 'replicas']);

/** Reads and checks a cluster file; InputError ('io') when it cannot be read. */
export async function readClusterFile(path: string): Promise<ClusterFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new InputError('io', path, null, -1, `cannot read the cluster file: ${(err as Error).message}`);
  }
  return parseClusterFile(text, path);
}

/** Checks the text of a cluster file; `source` names it in messages. */
export function parseClusterFile(text: string, source: string): ClusterFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    const { line, detail } = jsonSyntaxAt(text);
    throw new InputError('syntax', source, 'line', line, `not JSON (${detail}): expected a cluster file, {"name": ..., "nodes": [...]}`);
  }
  const bad = (where: string, expected: string): never => {
    throw new InputError('syntax', source, null, -1, `${where}: expected ${expected}`);
  };
  if (!isObject(doc)) return bad('the file', 'a JSON object {"name": ..., "nodes": [...], "replicas": [...]}');
  for (const k of Object.keys(doc)) if (!TOP_FIELDS.has(k)) bad(`"${k}"`, 'only "name", "nodes" and "replicas" at the top level');
  if (typeof doc['name'] !== 'string' || doc['name'] === '') bad('"name"', 'a non-empty string (the cluster\'s name)');
  if (!Array.isArray(doc['nodes']) || doc['nodes'].length === 0) bad('"nodes"', 'a non-empty array of nodes, each {"name", "url", and any of "kill", "start", "pause", "resume"}');
  if (doc['replicas'] !== undefined && !Array.isArray(doc['replicas'])) bad('"replicas"', 'an array of replicas (like "nodes")');
  const seen = new Map<string, string>();
  const members = (field: 'nodes' | 'replicas'): ClusterMember[] =>
    ((doc as Record<string, unknown>)[field] as unknown[] | undefined ?? []).map((m, i) => {
      const where = `${field}[${i}]`;
      if (!isObject(m)) return bad(where, 'an object {"name", "url", ...}');
      for (const k of Object.keys(m)) if (!MEMBER_FIELDS.has(k)) bad(`${where}."${k}"`, `one of ${[...MEMBER_FIELDS].map((f) => `"${f}"`).join(', ')}`);
      const name = m['name'];
      if (typeof name !== 'string' || name === '') return bad(`${where}.name`, 'a non-empty string (the node\'s label, as "n1")');
      const first = seen.get(name);
      if (first !== undefined) bad(`${where}.name`, `a name used once, but "${name}" is also ${first}`);
      seen.set(name, where);
      const url = m['url'];
      if (typeof url !== 'string' || !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url)) {
        return bad(`${where}.url`, `a URL such as mysql://user@127.0.0.1:3306/db or etcd://127.0.0.1:2379${typeof url === 'string' ? `, got "${redactUrl(url)}"` : ''}`);
      }
      const member: { -readonly [K in keyof ClusterMember]: ClusterMember[K] } = { name, url };
      for (const c of CLUSTER_COMMANDS) {
        const cmd = m[c];
        if (cmd === undefined) continue;
        if (typeof cmd !== 'string' || cmd.trim() === '') bad(`${where}.${c}`, `a shell command (a non-empty string), or no "${c}" at all when the node cannot be ${c === 'kill' ? 'killed' : c === 'start' ? 'started' : c === 'pause' ? 'paused' : 'resumed'}`);
        member[c] = cmd as string;
      }
      return member;
    });
  return { name: doc['name'] as string, nodes: members('nodes'), replicas: members('replicas') };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Where `text` stops being JSON: its 1-based line and what is there. (Node 20's JSON.parse
 * message gives no position and quotes the text, newlines included, so a small scanner finds
 * the first offset that cannot continue a JSON value; run only on a refused file, linear.)
 */
function jsonSyntaxAt(text: string): { line: number; detail: string } {
  const at = Math.min(jsonErrorOffset(text), text.length);
  let line = 1, col = 1;
  for (let i = 0; i < at; i++) {
    if (text.charCodeAt(i) === 10) { line++; col = 1; } else col++;
  }
  const detail = at >= text.length ? 'the text ends too soon' : `unexpected ${JSON.stringify(text[at])} at column ${col}`;
  return { line, detail };
}

/** The offset of the first character that makes `text` not JSON (text.length: it ends too soon). */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++; };
  const fail = (): never => { throw i; };
  const lit = (w: string) => { if (text.startsWith(w, i)) i += w.length; else fail(); };
  const str = () => {
    i++; // the opening quote
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++; ws();
      if (text[i] === close) { i++; return; }
      for (;;) {
        if (c === '{') { ws(); if (text[i] !== '"') fail(); str(); ws(); if (text[i] !== ':') fail(); i++; }
        value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === close) { i++; return; }
        fail();
      }
    }
    if (c === '"') return str();
    if (c === 't') return lit('true');
    if (c === 'f') return lit('false');
    if (c === 'n') return lit('null');
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m === null) fail();
    i += m![0].length;
  };
  try {
    value(); ws();
    return i; // something after the value
  } catch (at) {
    return at as number;
  }
}
