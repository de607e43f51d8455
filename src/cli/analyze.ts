/**
 * `polysi analyze PROGRAM --model ec|tcc|pc|psi|si|ser [--bound K] [--prove] [--involving T,...] [--json]
 *  [--timeout SECONDS] [--explain] [--dot FILE] [--svg FILE]`: static analysis of a transaction
 * program (src/analyze/, docs/analyze-language.md).
 *
 * Takes: argv after `analyze`. Gives: an exit code as `check`'s: 0 no anomaly up to the bound (or
 * proved), 1 an anomaly confirmed on the interpreter (a real execution of the program), 2 bad
 * input or usage, 3 unknown (the time budget ran out), and 5 an anomaly the encoding predicts
 * but the interpreter did not confirm (possibly a false alarm of the over-approximation: read
 * its reason before acting on it). `--json` prints one object (schema/analyze-result.schema.json).
 */

import { parseCommandArgs, UsageError } from './args.ts';
import { readFile } from 'node:fs/promises';
import { asOption, checkOutputPath, writeOutput } from './output.ts';
import { ioError } from '../formats/io-read.ts';
import { SCHEMA_VERSION } from '../render/json.ts';
import { TargetSpecError } from '../run/targets.ts';
import { DbError, type IsolationLevel } from '../run/types.ts';
import type { Io } from './main.ts';
import { parseLevelName } from '../result/levels.ts';
import { modelOfLevel } from '../analyze/models.ts';
import { MODEL_NAMES, type ModelName } from '../analyze/lang/ast.ts';
import { anomalyLabel } from '../render/text.ts';

const MODELS = 'ec (eventual consistency), tcc (alias cc), pc, psi, si (alias snapshot-isolation), ser (alias serializable)';
/** The model when --model is not given: eventual consistency, the weakest (every anomaly any model allows). */
export const DEFAULT_MODEL = 'ec';

export const USAGE = `usage: polysi analyze PROGRAM [--model ec|tcc|pc|psi|si|ser] [--bound K] [--prove] [--involving T1,T2,...] [--json]
                      [--timeout SECONDS] [--explain] [--dot FILE] [--svg FILE]
                      [--confirm [--db memory[:MODE]] [--isolation LEVEL] [--rounds N] [--seed S]]
models: ${MODELS}; --model also takes the other names check --level takes for these levels
defaults: --model ${DEFAULT_MODEL} (eventual consistency, the weakest), --bound 4, --timeout 60,
          --confirm: --db memory:lost-update --rounds 50 --seed 1
exit codes: 0 no anomaly up to the bound (or proved), 1 an anomaly confirmed on the interpreter,
            2 bad input or usage, 3 unknown (the time ran out), 4 internal error,
            5 an anomaly the interpreter did not confirm (possibly a false alarm: see its reason)
see docs/analyze-language.md`;

export const EXIT_NO_ANOMALY = 0;
export const EXIT_ANOMALY = 1;
export const EXIT_UNKNOWN = 3;
export const EXIT_UNCONFIRMED = 5;

/** The exit code of an analysis: a confirmed anomaly is 1; one the interpreter did not confirm has its own code. */
export function analyzeExit(r: { verdict: 'anomaly' | 'none' | 'proved' | 'unknown'; anomaly: { confirmation: { reproduced: boolean } } | null }): number {
  if (r.verdict === 'anomaly') return r.anomaly?.confirmation.reproduced === true ? EXIT_ANOMALY : EXIT_UNCONFIRMED;
  return r.verdict === 'unknown' ? EXIT_UNKNOWN : EXIT_NO_ANOMALY;
}

/** `--model`: ec, or a level name as `check --level` takes it, for the levels analyze has a model of. */
function parseModel(text: string): ModelName | string {
  if (text === 'ec') return 'ec';
  const parsed = parseLevelName(text);
  if (!parsed.ok) return `${parsed.message}; analyze supports ${MODELS}`;
  return modelOfLevel(parsed.level) ?? `analyze has no model for ${parsed.level}; it supports ${MODELS}`;
}

export async function runAnalyze(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs('analyze', args, {
      model: { type: 'string' },
      bound: { type: 'string', default: '4' },
      prove: { type: 'boolean', default: false },
      involving: { type: 'string' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '60' },
      explain: { type: 'boolean', default: false },
      dot: { type: 'string' },
      svg: { type: 'string' },
      confirm: { type: 'boolean', default: false },
      db: { type: 'string', default: 'memory:lost-update' },
      isolation: { type: 'string' },
      rounds: { type: 'string', default: '50' },
      seed: { type: 'string', default: '1' },
  });
  if (positionals.length !== 1) throw new UsageError('analyze', `expected exactly one program file, got ${positionals.length}`);
  const modelText = values.model ?? DEFAULT_MODEL;
  const model = parseModel(modelText);
  if (!(MODEL_NAMES as readonly string[]).includes(model)) {
    io.stderr(`polysi analyze: --model "${modelText}": ${model}`);
    return 2;
  }
  const bound = Number(values.bound);
  if (!Number.isInteger(bound) || bound < 2 || bound > 12) {
    io.stderr(`polysi analyze: --bound takes an integer from 2 to 12, got "${values.bound}"`);
    return 2;
  }
  const timeout = Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) {
    io.stderr(`polysi analyze: --timeout takes a positive number of seconds, got "${values.timeout}"`);
    return 2;
  }
  // An output that cannot be written is known now, not after the solver's minutes.
  if (values.dot !== undefined) await asOption('dot', checkOutputPath(values.dot));
  if (values.svg !== undefined) await asOption('svg', checkOutputPath(values.svg));
  const rounds = Number(values.rounds);
  const seed = Number(values.seed);
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seed)) {
    io.stderr(`polysi analyze: --rounds takes a positive integer and --seed an integer`);
    return 2;
  }
  const isolations = ['read-uncommitted', 'read-committed', 'repeatable-read', 'snapshot', 'serializable'];
  // As the databases spell them too: `REPEATABLE READ`, `repeatable_read`.
  const isolation = values.isolation?.trim().toLowerCase().replace(/[\s_]+/g, '-');
  if (isolation !== undefined && !isolations.includes(isolation)) {
    io.stderr(`polysi analyze: --isolation must be one of ${isolations.join(', ')}, got "${values.isolation}"`);
    return 2;
  }
  // `-` reads the program from standard input (a pipe), named <stdin> in messages, as `check` does.
  const path = positionals[0] === '-' ? '<stdin>' : positionals[0]!;
  let text: string;
  try {
    text = positionals[0] === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (err) {
    throw ioError(path, err, 'read the program');
  }
  const { parseProgram, analyzeProgram } = await import('../analyze/index.ts');
  const program = parseProgram(text, path);
  // --involving T1,T2: every instance of the cycle is one of them, and each of them appears.
  let involving: string[] | undefined;
  if (values.involving !== undefined) {
    involving = values.involving.split(',').map((x) => x.trim()).filter((x) => x !== '');
    const unknown = involving.filter((t) => !program.txns.some((x) => x.name === t));
    if (involving.length === 0 || unknown.length > 0) {
      io.stderr(`polysi analyze: --involving takes transaction names of ${path} separated by commas (${program.txns.map((t) => t.name).join(', ')}), got "${values.involving}"`);
      return 2;
    }
    if (values.prove) {
      io.stderr('polysi analyze: --involving focuses the bounded search and cannot be combined with --prove');
      return 2;
    }
  }
  const r = await analyzeProgram(program, { model: model as ModelName, bound, prove: values.prove, timeoutMs: timeout * 1000, ...(involving === undefined ? {} : { involving }) });
  // --confirm: run the confirmed anomaly's instances against the store and check the histories.
  let dynamic: unknown = null;
  let dynamicText = '';
  if (values.confirm && r.anomaly !== null && r.anomaly.confirmation.db !== null) {
    const { confirmOnDb, NotRunnableError } = await import('../analyze/confirm-db.ts');
    const { analyzeProgram: access } = await import('../analyze/lang/access.ts');
    try {
      const d = await confirmOnDb(access(program), r.anomaly.witness, r.anomaly.confirmation.db, {
        db: values.db, rounds, seed, ...(isolation === undefined ? {} : { isolation: isolation as IsolationLevel }),
      });
      dynamic = { ...d, reproduced: d.violations > 0 };
      dynamicText = d.violations > 0
        ? `  REPRODUCED on ${d.target} (${d.isolation}): ${d.violations} of ${d.rounds} rounds violate serializability, first in round ${d.firstViolationRound} (${d.anomalyNames.join(', ')}); ${d.committed} commits, ${d.aborted} aborts`
        : `  not reproduced on ${d.target} (${d.isolation}) in ${d.rounds} rounds; ${d.committed} commits, ${d.aborted} aborts`;
      if (d.unknown > 0) dynamicText += `, ${d.unknown} unknown outcomes`;
    } catch (err) {
      // A program the store cannot run, a bad --db, an unreachable database: usage errors (2);
      // the driver's messages already hide the password.
      const unreachable = err instanceof DbError && err.kind === 'unreachable';
      if (!unreachable && !(err instanceof NotRunnableError) && !(err instanceof TargetSpecError)) throw err;
      io.stderr(`polysi analyze --confirm: ${err.message}`);
      return 2;
    }
  } else if (values.confirm) dynamicText = '  --confirm: nothing to run (no anomaly confirmed on the interpreter)';
  if (values.json) {
    io.stdout(JSON.stringify({
      schemaVersion: SCHEMA_VERSION,
      dynamic,
      verdict: r.verdict, model: r.model, bound: r.bound, involving: r.involving, file: path,
      anomaly: r.anomaly === null ? null : {
        length: r.anomaly.length,
        class: r.anomaly.explanation.class,
        description: r.anomaly.explanation.description,
        instances: r.anomaly.witness.execution.instances,
        arbitration: r.anomaly.witness.execution.ar,
        visibility: r.anomaly.witness.execution.vis,
        cycle: r.anomaly.witness.cycle,
        confirmed: r.anomaly.confirmation.reproduced,
        confirmation: { reason: r.anomaly.confirmation.reason, initialValue: r.anomaly.confirmation.initialValue, initialRows: r.anomaly.confirmation.initialRows },
        explanation: r.anomaly.explanation,
      },
      proof: r.proof, proofNote: r.proofNote, proofAttempts: r.proofAttempts, queries: r.queries, timesMs: r.timesMs,
    }));
  } else {
    io.stdout(await renderAnalysis(r, path, values.explain, values.model === undefined) + (dynamicText === '' ? '' : `\n${dynamicText}`));
  }
  if (r.anomaly !== null && (values.dot !== undefined || values.svg !== undefined)) {
    const render = await import('../render/index.ts');
    if (values.dot !== undefined) await asOption('dot', writeOutput(values.dot, render.renderDot([r.anomaly.explanation], 'anode')));
    if (values.svg !== undefined) await asOption('svg', writeOutput(values.svg, await render.renderSvg([r.anomaly.explanation])));
  }
  return analyzeExit(r);
}

async function renderAnalysis(r: Awaited<ReturnType<typeof import('../analyze/index.ts')['analyzeProgram']>>, path: string, explain: boolean, defaultModel: boolean): Promise<string> {
  const lines = [`${path}: model ${r.model}${defaultModel ? ' (the default; --model to choose)' : ''}, bound ${r.bound}${r.involving === null ? '' : `, involving ${r.involving.join(', ')}`}`];
  if (r.verdict === 'anomaly') {
    const a = r.anomaly!;
    lines.push(`ANOMALY (${anomalyLabel(a.explanation)}, ${a.length} instances): ${a.explanation.summary}`);
    for (const e of a.explanation.edges) lines.push(`  ${a.explanation.txns[e.from]!.label} -${e.kind}(${e.keyLabel})-> ${a.explanation.txns[e.to]!.label}`);
    const order = a.witness.execution.ar.map((i) => `#${i + 1}`).join(' < ');
    lines.push(`  arbitration: ${order}; visible: ${visText(a.witness.execution.vis)}`);
    lines.push(a.confirmation.reproduced
      ? `  confirmed on the interpreter (unwritten fields = ${a.confirmation.initialValue}${a.confirmation.initialRows.length > 0 ? `, ${a.confirmation.initialRows.length} initial rows` : ''})`
      : `  NOT confirmed on the interpreter: ${a.confirmation.reason}`);
    if (explain) {
      const { renderExplanationText } = await import('../render/index.ts');
      lines.push(renderExplanationText(a.explanation));
    }
  } else if (r.verdict === 'proved') lines.push(`PROVED: ${r.proof!.statement}`);
  else if (r.verdict === 'none') lines.push(`no anomaly with up to ${r.bound} instances${r.proofNote === null ? '' : ', not proved:'}`);
  else lines.push('UNKNOWN: the time budget ran out');
  // --prove without a proof: why each method does not apply, and the chordless path found.
  if (r.proofAttempts !== null) {
    const p = r.proofAttempts;
    if (r.verdict !== 'none') lines.push('  not proved:');
    if (p.shortestPath !== null) lines.push(`  - ${p.shortestPath}`);
    const path = p.chordlessPath;
    if (path !== null && path.confirmed) {
      const label = (i: number) => {
        const inst = path.instances[i]!;
        return `${inst.txn}#${i + 1}(${inst.args.join(', ')})`;
      };
      for (const e of path.edges) lines.push(`      ${label(e.from)} -${e.kind}(${e.item})-> ${label(e.to)}`);
      if (path.initialRows.length > 0) lines.push(`      initial rows: ${path.initialRows.map((x) => `${x.table}(${Object.entries(x.values).map(([f, v]) => `${f}=${v}`).join(', ')})`).join(' ')}`);
    }
    if (p.inductive !== '') lines.push(`  - ${p.inductive}`);
  }
  lines.push(`  ${r.queries.length} queries, ${r.timesMs.total} ms (Z3 load ${r.timesMs.z3Load} ms)`);
  return lines.join('\n');
}

function visText(vis: boolean[][]): string {
  const out: string[] = [];
  vis.forEach((row, i) => row.forEach((v, j) => { if (v) out.push(`#${i + 1}→#${j + 1}`); }));
  return out.length === 0 ? 'none' : out.join(', ');
}

/** All of standard input as UTF-8 text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
