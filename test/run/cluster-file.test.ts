/**
 * The cluster file reader (src/run/cluster.ts) against its schema (schema/cluster.schema.json):
 * on every case below both accept or both refuse, and the reader's refusal names the file, the
 * field (or line) and what was expected. The files the scripts write are checked against both
 * in test/cluster/clusters.test.ts.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseClusterFile, readClusterFile } from '../../src/run/cluster.ts';
import { InputError } from '../../src/history/errors.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'cluster.schema.json'), 'utf8')) as object);

const node = (name: string, extra: Record<string, unknown> = {}) => ({
  name, url: `mysql://polysi:secret-pw@127.0.0.1:5400${name.slice(1)}/polysi`,
  kill: `kill -9 $(cat /tmp/x/${name}/mysqld.pid)`, start: `/tmp/x/${name}/start.sh`,
  pause: `kill -STOP $(cat /tmp/x/${name}/mysqld.pid)`, resume: `kill -CONT $(cat /tmp/x/${name}/mysqld.pid)`,
  ...extra,
});

const GOOD = { name: 'galera', nodes: [node('n1'), node('n2'), node('n3')] };

/** [what, document, the part of the message that says where and what was expected] */
const BAD: [string, unknown, RegExp][] = [
  ['an array', [GOOD], /the file: expected a JSON object/],
  ['no name', { nodes: GOOD.nodes }, /"name": expected a non-empty string/],
  ['no nodes', { name: 'x' }, /"nodes": expected a non-empty array/],
  ['empty nodes', { name: 'x', nodes: [] }, /"nodes": expected a non-empty array/],
  ['an unknown top field', { ...GOOD, extra: 1 }, /"extra": expected only "name", "nodes" and "replicas"/],
  ['replicas not an array', { ...GOOD, replicas: {} }, /"replicas": expected an array/],
  ['a node without url', { name: 'x', nodes: [{ name: 'n1' }] }, /nodes\[0\]\.url: expected a URL/],
  ['a url without scheme', { name: 'x', nodes: [{ name: 'n1', url: '127.0.0.1:3306' }] }, /nodes\[0\]\.url: expected a URL .*got "127\.0\.0\.1:3306"/],
  ['a node without name', { name: 'x', nodes: [{ url: 'etcd://127.0.0.1:1' }] }, /nodes\[0\]\.name: expected a non-empty string/],
  ['an empty command', { name: 'x', nodes: [node('n1', { pause: '' })] }, /nodes\[0\]\.pause: expected a shell command/],
  ['a blank command', { name: 'x', nodes: [node('n1', { start: '  ' })] }, /nodes\[0\]\.start: expected a shell command/],
  ['a command not a string', { name: 'x', nodes: [node('n1', { kill: ['kill', '-9'] })] }, /nodes\[0\]\.kill: expected a shell command/],
  ['an unknown node field', { name: 'x', nodes: [node('n1', { stop: 'x' })] }, /nodes\[0\]\."stop": expected one of "name", "url", "kill"/],
  ['a bad replica', { ...GOOD, replicas: [{ name: 'r1' }] }, /replicas\[0\]\.url: expected a URL/],
];

test('a cluster file as the scripts write it is read whole, and the schema accepts it', () => {
  const c = parseClusterFile(JSON.stringify(GOOD, null, 2), 'c.json');
  assert.ok(validate(GOOD), ajv.errorsText(validate.errors));
  assert.equal(c.name, 'galera');
  assert.deepEqual(c.nodes.map((n) => n.name), ['n1', 'n2', 'n3']);
  assert.equal(c.nodes[1]!.pause, 'kill -STOP $(cat /tmp/x/n2/mysqld.pid)');
  assert.deepEqual(c.replicas, []);
});

test('commands are optional: an absent one stays absent (that fault is not available there)', () => {
  const doc = { name: 'pg', nodes: [{ name: 'primary', url: 'postgres://u@127.0.0.1:1/d' }], replicas: [{ name: 'standby', url: 'postgres://u@127.0.0.1:2/d', pause: 'kill -STOP 1' }] };
  assert.ok(validate(doc));
  const c = parseClusterFile(JSON.stringify(doc), 'c.json');
  assert.equal(c.nodes[0]!.kill, undefined);
  assert.equal('kill' in c.nodes[0]!, false);
  assert.equal(c.replicas[0]!.pause, 'kill -STOP 1');
});

for (const [what, doc, expected] of BAD) {
  test(`refused by both the reader and the schema: ${what}`, () => {
    assert.equal(validate(doc), false, `the schema accepts ${what}`);
    assert.throws(() => parseClusterFile(JSON.stringify(doc), 'bad.json'), (err: unknown) => {
      assert.ok(err instanceof InputError, String(err));
      assert.match(err.message, /^bad\.json/);
      assert.match(err.message, expected);
      return true;
    });
  });
}

test('the same name twice (nodes and replicas share one namespace) is refused with both places', () => {
  const doc = { ...GOOD, replicas: [node('n2')] };
  assert.throws(() => parseClusterFile(JSON.stringify(doc), 'c.json'), /replicas\[0\]\.name: expected a name used once, but "n2" is also nodes\[1\]/);
});

test('a URL\'s password never appears in a message', () => {
  const doc = { name: 'x', nodes: [{ name: 'n1', url: 'mysql//polysi:secret-pw@127.0.0.1:1/d' }] };
  assert.throws(() => parseClusterFile(JSON.stringify(doc), 'c.json'), (err: unknown) => {
    assert.doesNotMatch((err as Error).message, /secret-pw/);
    return true;
  });
});

test('JSON syntax errors name the line; an unreadable file is an io InputError', async () => {
  assert.throws(() => parseClusterFile('{\n  "name": "x",\n  "nodes": [,]\n}', 'c.json'), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.match(err.message, /^c\.json line 3: not JSON \(unexpected "," at column 13\): expected a cluster file/);
    return true;
  });
  assert.throws(() => parseClusterFile('', 'empty.json'), /empty\.json line 1: not JSON \(the text ends too soon\)/);
  const dir = mkdtempSync(join(tmpdir(), 'polysi-cluster-file-'));
  try {
    await assert.rejects(readClusterFile(join(dir, 'none.json')), (err: unknown) => {
      assert.ok(err instanceof InputError && err.code === 'io');
      assert.match(err.message, /none\.json: cannot read the cluster file/);
      return true;
    });
    writeFileSync(join(dir, 'c.json'), JSON.stringify(GOOD));
    assert.equal((await readClusterFile(join(dir, 'c.json'))).nodes.length, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
