/**
 * A test hook for the internal-error path of the CLI (exit 4), documented in the README.
 *
 * Takes: the name of the command that calls it. Gives: nothing, or throws a plain Error (as a
 * bug would) when the environment has POLYSI_TEST_FAULT=internal. Only the commands in
 * src/cli/ call it, once their arguments are parsed; the library never reads the variable.
 * POLYSI_TEST_FAULT=worker-exit makes a batch worker thread end abruptly (as out of memory would)
 * when it is given a history whose file name starts with "crash" (injectedWorkerExit).
 */

export function injectedFault(where: string): void {
  if (process.env['POLYSI_TEST_FAULT'] === 'internal') throw new Error(`fault injected by POLYSI_TEST_FAULT in ${where}`);
}

/** In a batch worker: ends the thread at once for a file named crash* under POLYSI_TEST_FAULT=worker-exit. */
export function injectedWorkerExit(path: string): void {
  if (process.env['POLYSI_TEST_FAULT'] === 'worker-exit' && /(^|[\\/])crash[^\\/]*$/.test(path)) process.exit(70);
}
