/**
 * The supervisor's own entry file (`node supervisor-main.js <name>`), which the launcher runs
 * instead of the whole CLI so that each resident supervisor loads only what it needs.
 */
import { superviseWorkload } from './supervise.js';

const name = process.argv[2];
if (name === undefined || name === '') {
  process.stderr.write('usage: supervisor-main <workload name>\n');
  process.exit(2);
}

process.exit(await superviseWorkload(name, process.env));
