import { connectAll, runWorkload } from '../src/run/runner.ts';
import { JsonlRecorder } from '../src/run/recorder.ts';
import { MemoryTarget } from '../src/store/memory.ts';
import { DEFAULT_WORKLOAD, generateWorkload } from '../src/workload/index.ts';
for (let i = 0; i < 4; i++) {
const plan = generateWorkload({ ...DEFAULT_WORKLOAD, txnsPerSession: 1000 });
const target = new MemoryTarget('serializable', 1);
const conns = await connectAll(target, 20);
const rec = new JsonlRecorder('/tmp/w8a-tmp/p.jsonl', 20);
const c = process.cpuUsage();
await runWorkload(target, conns, plan, { isolation: 'snapshot', onTxn: (r) => rec.record(r) });
rec.close();
const u = process.cpuUsage(c);
console.log('cpu ms', (u.user + u.system) / 1000, 'rec', rec.busyMs);
}
