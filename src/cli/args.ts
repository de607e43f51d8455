/**
 * Command-line parsing shared by the commands: node:util's parseArgs, plus negative numbers.
 *
 * Takes: the arguments after the command name and parseArgs options. Gives: parseArgs' result.
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

/** parseArgs with positionals allowed and negative numbers accepted as option values. */
export function parseCommandArgs<O extends Options>(args: readonly string[], options: O) {
  return parseArgs({ args: joinNegativeValues(args, options), allowPositionals: true, options, strict: true });
}
