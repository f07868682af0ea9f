import { cpus } from 'node:os';
import { runSoak, type SoakSample } from './soak-run.js';

/**
 * `npm run soak -- [cycles] [validators]`: polls a churning fake node at a
 * 10 ms interval and prints memory, series and event-loop figures at the
 * start, along the way, and at the end. A script, not a test: the suite runs
 * a short version (test/faults/soak.test.ts).
 */
const cycles = Number(process.argv[2] ?? 100_000);
const validators = Number(process.argv[3] ?? 200);
if (!Number.isInteger(cycles) || cycles <= 0 || !Number.isInteger(validators) || validators <= 0) {
  process.stderr.write('usage: npm run soak -- [cycles=100000] [validators=200]\n');
  process.exit(2);
}

const row = (s: SoakSample) =>
  `| ${s.cycle} | ${s.rssMb.toFixed(1)} | ${s.heapUsedMb.toFixed(1)} | ${s.series} | ${s.eventLoopP99Ms.toFixed(1)} | ${s.activeResources} | ${s.listeners} |`;
const header = '| cycle | RSS MB | heap used MB | series | event-loop p99 ms | active resources | listeners |\n|---|---|---|---|---|---|---|';

process.stdout.write(`soak: ${cycles} cycles, ${validators} validators with 5 % churn per cycle, 10 ms interval\n`);
process.stdout.write(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, Node ${process.version}\n\n${header}\n`);
const every = Math.max(1, Math.floor(cycles / 10));
const result = await runSoak({ cycles, validators, intervalMs: 10, every, onProgress: (s) => process.stdout.write(`${row(s)}\n`) });
process.stdout.write(`\nstart: ${row(result.start)}\nend:   ${row(result.end)}\n`);
process.stdout.write(
  `\n${result.cycles} cycles in ${result.seconds.toFixed(0)} s; rounds with a failed source: ${result.failedRounds}; ` +
    `RSS ${result.start.rssMb.toFixed(1)} → ${result.end.rssMb.toFixed(1)} MB, heap ${result.start.heapUsedMb.toFixed(1)} → ${result.end.heapUsedMb.toFixed(1)} MB, ` +
    `series ${result.start.series} → ${result.end.series}\n`,
);
