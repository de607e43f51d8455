/**
 * The packages polysi uses for one job each and does not install with itself (optional peer
 * dependencies in package.json): a user who only checks histories downloads neither Z3 (35 MB)
 * nor Graphviz nor the database drivers.
 *
 * Takes: a package name, the job that needs it, and the import of it (a literal `import('pg')`
 * at the call site, so the bundler sees it). Gives: the module, or MissingPackageError, whose
 * message is one line saying what to install.
 * Invariant: only "this package is not installed" becomes MissingPackageError; any other failure
 * of loading it (a broken install, a missing file inside it) is passed on as it is.
 */

/** The optional packages and the jobs that need them (for messages and documentation). */
export const OPTIONAL_PACKAGES: Readonly<Record<string, string>> = {
  'pg': 'polysi run --db postgres://... (and analyze --confirm on PostgreSQL)',
  'mysql2': 'polysi run --db mysql://... (and analyze --confirm on MariaDB / MySQL)',
  'z3-solver': 'polysi analyze',
  '@viz-js/viz': 'drawing SVG (--svg, --html, renderSvg, htmlReport)',
  'etcd3': 'polysi run --db etcd://...',
};

export class MissingPackageError extends Error {
  readonly code = 'missing-package';
  constructor(readonly pkg: string, readonly needed: string) {
    super(`${needed} needs the npm package ${pkg}, which is not installed: run npm install ${pkg}`);
    this.name = 'MissingPackageError';
  }
}

/** `load()`, with "package `pkg` is not installed" turned into MissingPackageError. */
export async function importOptional<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isNotInstalled(err, pkg)) throw new MissingPackageError(pkg, OPTIONAL_PACKAGES[pkg] ?? `this feature`);
    throw err;
  }
}

/**
 * Whether `err` says that `pkg` itself (or a subpath of it, as `mysql2/promise`) cannot be found:
 * ESM's "Cannot find package 'pg' imported from ..." or CommonJS's "Cannot find module 'pg'".
 * A missing module *inside* the package names another one and is not this.
 */
function isNotInstalled(err: unknown, pkg: string): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = err instanceof Error ? err.message : String(err);
  const escaped = pkg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`'${escaped}(?:/[^']*)?'`).test(message);
}
