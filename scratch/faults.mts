import { main } from '../src/cli/main.ts';
const [mode, want, ...extra] = process.argv.slice(2);
const names: string[] = [];
let hits = 0;
for (let seed = 1; seed <= 10; seed++) {
  let out = '';
  const code = await main(['run', '--db', `memory:${mode}`, '--seed', String(seed), '--out', `/tmp/probe-scratch/f-${mode}-${process.pid}.jsonl`, '--json', ...extra], { stdout: (s) => { out += s; }, stderr: () => {} });
  const j = JSON.parse(out);
  const ns = (j.anomalies ?? []).map((a: any) => a.explanation?.name ?? a.name);
  if (ns.includes(want)) hits++;
  names.push(code === 0 ? 'valid' : ns[0]);
}
console.log(mode, extra.join(' '), `${hits}/10`, names.join('|'));
