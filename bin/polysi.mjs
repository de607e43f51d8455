#!/usr/bin/env node
// The `polysi` command by its former path: the same program as bin/polysi.cjs (the package's
// "bin"), which it runs. Only the ES module loader it starts first makes it slower to start.
import './polysi.cjs';
