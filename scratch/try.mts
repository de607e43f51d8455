import { probe } from '/work/wt-probe/src/probe/probe.ts';
const db = process.argv[2]!;
const t = performance.now();
const r = await probe({ db, outDir: '/tmp/probe-scratch/out-' + db.split(':')[0], repeat: Number(process.argv[3] ?? 3), levels: process.argv[4] ? process.argv[4].split(',') : undefined });
for (const l of r.levels) {
  console.log(`== ${l.level} claimed ${l.claimed} actual ${l.actual.join(',')} refused ${l.refused} runs ${l.runs}`);
  for (const c of l.cells) console.log(`  ${c.scenario.padEnd(18)} ${c.outcome.padEnd(20)} runs ${c.runs} allowed ${c.allowedRuns} blocked ${c.blockedRuns} aborted ${c.abortedRuns} ${JSON.stringify(c.abortCodes)} ${c.anomaly ? c.anomaly.name + "/" + c.anomaly.class + "@" + c.anomaly.level : ""} other=${c.other?.name ?? ""} viol=${c.violated.join(',')}`);
}
console.log('ms', performance.now() - t);
