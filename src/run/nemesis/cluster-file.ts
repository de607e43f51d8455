/**
 * The cluster file (issue 24; docs/distributed.md, schema/cluster.schema.json): a JSON object
 * naming each node's URL and the shell commands that kill, start, pause and resume it.
 *
 * Takes: the file's text and its path (for messages). Gives: a ClusterSpec.
 * Invariant: a file that is not exactly the documented shape is a ClusterFileError naming the
 * file and the field, never a guess; node names are unique (they label faults and txns).
 * Commands are kept as written: they are run with `sh -c` (commands.ts) and may be absent
 * (that fault is then not available for that node).
 */

export interface NodeSpec {
  readonly name: string;
  readonly url: string;
  /** Shell commands (`sh -c`), each optional. */
  readonly kill?: string;
  readonly start?: string;
  readonly pause?: string;
  readonly resume?: string;
}

export interface ClusterSpec {
  readonly name: string;
  readonly nodes: readonly NodeSpec[];
  readonly replicas: readonly NodeSpec[];
}

export class ClusterFileError extends Error {}

const TOP_FIELDS = new Set(['name', 'nodes', 'replicas']);
const NODE_FIELDS = new Set(['name', 'url', 'kill', 'start', 'pause', 'resume']);
const COMMANDS = ['kill', 'start', 'pause', 'resume'] as const;

export function parseClusterFile(text: string, path: string): ClusterSpec {
  const fail = (what: string): never => { throw new ClusterFileError(`cluster file ${path}: ${what}`); };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (err) {
    return fail(`not JSON (${(err as Error).message})`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return fail('expected a JSON object {"name", "nodes", "replicas"}');
  const top = o as Record<string, unknown>;
  for (const f of Object.keys(top)) if (!TOP_FIELDS.has(f)) fail(`unknown field "${f}"; expected name, nodes, replicas`);
  const name = top['name'] ?? 'cluster';
  if (typeof name !== 'string' || name === '') fail('expected "name" to be a non-empty string');
  const seen = new Set<string>();
  const list = (field: 'nodes' | 'replicas', required: boolean): NodeSpec[] => {
    const v = top[field];
    if (v === undefined && !required) return [];
    if (!Array.isArray(v) || (required && v.length === 0)) return fail(`expected "${field}" to be a${required ? ' non-empty' : 'n'} array of nodes`);
    return v.map((n: unknown, i: number) => {
      const where = `${field}[${i}]`;
      if (typeof n !== 'object' || n === null || Array.isArray(n)) return fail(`expected ${where} to be an object {"name", "url", ...}`);
      const node = n as Record<string, unknown>;
      for (const f of Object.keys(node)) if (!NODE_FIELDS.has(f)) fail(`${where}: unknown field "${f}"; expected name, url, ${COMMANDS.join(', ')}`);
      const nodeName = node['name'], url = node['url'];
      if (typeof nodeName !== 'string' || nodeName === '') fail(`${where}: expected "name" to be a non-empty string`);
      if (seen.has(nodeName as string)) fail(`${where}: the node name "${nodeName}" is used twice`);
      seen.add(nodeName as string);
      if (typeof url !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) fail(`${where} ("${nodeName}"): expected "url" to be a database URL (postgres://..., mysql://...)`);
      const spec: { -readonly [K in keyof NodeSpec]: NodeSpec[K] } = { name: nodeName as string, url: url as string };
      for (const c of COMMANDS) {
        const cmd = node[c];
        if (cmd === undefined) continue;
        if (typeof cmd !== 'string' || cmd.trim() === '') fail(`${where} ("${nodeName}"): expected "${c}" to be a shell command (a non-empty string)`);
        spec[c] = cmd as string;
      }
      return spec;
    });
  };
  return { name: name as string, nodes: list('nodes', true), replicas: list('replicas', false) };
}
