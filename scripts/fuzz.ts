import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz/run.js';

/**
 * `npm run fuzz [-- --requests N --seed S]`: generated bad requests against both services, checked
 * against the API contract; exits 1 when any problem is found. Writes bench/results/fuzz.json.
 */
const { values } = parseArgs({ options: { requests: { type: 'string', default: '10000' }, seed: { type: 'string', default: '1' } } });
const requests = Number(values.requests);
const seed = Number(values.seed);
if (!Number.isSafeInteger(requests) || requests < 1 || !Number.isSafeInteger(seed)) {
  console.error('usage: npm run fuzz -- [--requests N (a positive whole number)] [--seed S (a whole number)]');
  process.exit(2);
}

const report = await runFuzz({ requests, seed, progress: (line) => console.log(line) });
for (const [name, service] of Object.entries(report.services)) {
  console.log(
    `\n${name}: ${String(service.requests)} requests, answers ${JSON.stringify(service.answers)}; ${String(service.serverErrors)} 5xx, ` +
      `${String(service.badErrorBodies)} 4xx outside the {error} shape, ${String(service.noAnswer)} closed with no answer` +
      (service.leakedProcesses === undefined ? '' : `, ${String(service.leakedProcesses)} processes left running`),
  );
  for (const problem of service.problems) {
    console.log(`  [${problem.kind}] x${String(problem.count)} ${problem.operation} with ${problem.mutation}\n    request: ${problem.request.slice(0, 400)}\n    answer:  ${problem.outcome}`);
    if (problem.serverLog !== undefined) console.log(`    logged:  ${problem.serverLog}`);
  }
}
const file = new URL('../bench/results/fuzz.json', import.meta.url);
await mkdir(new URL('.', file), { recursive: true });
await writeFile(file, `${JSON.stringify({ date: new Date().toISOString(), ...report }, null, 2)}\n`);
console.log(`\n${String(report.problems)} problems; written to bench/results/fuzz.json`);
process.exit(report.problems > 0 ? 1 : 0);
