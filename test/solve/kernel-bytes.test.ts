/**
 * The solve stage's three WebAssembly kernels run from bytes assembled ahead of time
 * (src/solve/kahn-bytes.ts, src/solve/contract-wasm-bytes.ts, src/sat/csr-wasm-bytes.ts):
 * each must be exactly what the assembler makes of its kernel's text. Run with
 * UPDATE_WASM_KERNEL=1 to rewrite the stale ones.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { embeddedKahnBytes, kahnBytes } from '../../src/solve/kahn.ts';
import { contractKernelBytes, embeddedContractKernelBytes } from '../../src/solve/contract-wasm.ts';
import { csrKernelBytes, embeddedCsrKernelBytes } from '../../src/sat/csr-wasm.ts';

const kernels = [
  { file: 'src/solve/kahn-bytes.ts', name: 'KAHN_BASE64', assembled: kahnBytes, embedded: embeddedKahnBytes },
  { file: 'src/solve/contract-wasm-bytes.ts', name: 'EDGES_BASE64', assembled: contractKernelBytes, embedded: embeddedContractKernelBytes },
  { file: 'src/sat/csr-wasm-bytes.ts', name: 'CSR_BASE64', assembled: csrKernelBytes, embedded: embeddedCsrKernelBytes },
];

for (const k of kernels) {
  test(`the kernel bytes that run (${k.file}) are what the assembler makes`, () => {
    const assembled = k.assembled();
    assert.ok(WebAssembly.validate(assembled));
    // The update writes the file; this process still holds the module as it was imported.
    if (process.env['UPDATE_WASM_KERNEL'] === '1') return writeKernelBytes(k.file, k.name, assembled);
    assert.deepEqual(k.embedded(), assembled,
      `${k.file} is stale: run UPDATE_WASM_KERNEL=1 node --import tsx --test test/solve/kernel-bytes.test.ts`);
  });
}

/** Rewrites `file`'s constant `name` with `bytes` (its header and layout kept). */
function writeKernelBytes(file: string, name: string, bytes: Uint8Array): void {
  const path = fileURLToPath(new URL(`../../${file}`, import.meta.url));
  const b64 = Buffer.from(bytes).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 96) lines.push(`  '${b64.slice(i, i + 96)}',`);
  const old = readFileSync(path, 'utf8');
  const head = old.slice(0, old.indexOf(`export const ${name}`));
  writeFileSync(path, `${head}export const ${name} = [\n${lines.join('\n')}\n].join('');\n`);
}
