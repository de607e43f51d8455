/**
 * Command-line parsing shared by the commands: node:util's parseArgs, plus negative numbers and
 * usage errors a person can act on.
 *
 * Takes: the command's name, the arguments after it and parseArgs options. Gives: parseArgs'
 * result, or a UsageError of one line: what is wrong ("unknown option --levle (did you mean
 * --level?)", "--level takes a value"); main.ts adds the pointer to `polysi COMMAND --help`.
 * Invariant: `--opt -5` means `--opt=-5` when `--opt` takes a value and `-5` looks like a number,
 * so the command's own range check answers ("takes a positive integer, got "-5"") instead of
 * parseArgs' "argument is ambiguous" (it reads any value starting with '-' as an option).
 */

import { parseArgs, type ParseArgsConfig } from 'node:util';

const NUMBER_LIKE = /^-(?:\d|\.\d)/;

type Options = NonNullable<ParseArgsConfig['options']>;

/** `args` with `--opt -5` joined into `--opt=-5` for the string options of `options`. */
export function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : null;
    if (name !== null && options[name]?.type === 'string' && next !== undefined && NUMBER_LIKE.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

/**
 * A mistake on the command line (exit 2). `command`: the command it was given to; the message is
 * one line, without the usage (main.ts points to `polysi COMMAND --help` instead).
 */
export class UsageError extends Error {
  constructor(readonly command: string, message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The line main.ts prints for a usage error: what is wrong, then where the options are listed. */
export function usageLine(command: string, message: string): string {
  return `polysi ${command}: ${message}; see polysi ${command} --help`;
}

/** parseArgs with negative numbers accepted as option values; its errors become UsageErrors. */
export function parseCommandArgs<O extends Options>(command: string, args: readonly string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({ args: joinNegativeValues(args, options), allowPositionals, options, strict: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (!(err instanceof TypeError) || code === undefined || !code.startsWith('ERR_PARSE_ARGS')) throw err;
    throw new UsageError(command, parseArgsMessage(err.message, code, Object.keys(options)));
  }
}

/** parseArgs' message (several sentences written for programmers) as one line for people. */
function parseArgsMessage(message: string, code: string, names: readonly string[]): string {
  const quoted = /'(-[^' ]*)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) {
    const given = quoted.replace(/^-+/, '').replace(/=.*$/, '');
    const near = nearest(given, names);
    return `unknown option ${quoted}${near === null ? '' : ` (did you mean --${near}?)`}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    return /does not take an argument/.test(message) ? `${quoted} takes no value` : `${quoted} takes a value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const arg = /'([^']*)'/.exec(message)?.[1];
    return `${arg === undefined ? 'unexpected argument' : `unexpected argument "${arg}"`} (this command takes options only)`;
  }
  return message.split('\n')[0]!;
}

/**
 * The known name closest to `given` by edit distance (insertions, deletions, substitutions and
 * swaps of neighbours), if close enough to be a slip: at most 1 for names of up to 4 letters,
 * 2 beyond; a unique name it is a prefix of also counts. Null when none, or when two tie.
 */
export function nearest(given: string, names: readonly string[]): string | null {
  const prefixed = names.filter((n) => given.length >= 2 && n.startsWith(given));
  if (prefixed.length === 1) return prefixed[0]!;
  let best: string | null = null, bestD = Number.POSITIVE_INFINITY, tie = false;
  for (const n of names) {
    const d = editDistance(given, n);
    if (d < bestD) { best = n; bestD = d; tie = false; } else if (d === bestD) tie = true;
  }
  const limit = given.length <= 4 ? 1 : 2;
  return best !== null && bestD <= limit && !tie ? best : null;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits), O(|a|·|b|) on short names. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
