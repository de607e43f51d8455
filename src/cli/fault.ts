/**
 * A test hook for the internal-error path of the CLI (exit 4), documented in the README.
 *
 * Takes: the name of the command that calls it. Gives: nothing, or throws a plain Error (as a
 * bug would) when the environment has POLYSI_TEST_FAULT=internal. Only the commands in
 * src/cli/ call it, once their arguments are parsed; the library never reads the variable.
 */

export function injectedFault(where: string): void {
  if (process.env['POLYSI_TEST_FAULT'] === 'internal') throw new Error(`fault injected by POLYSI_TEST_FAULT in ${where}`);
}
