import { spawn } from 'node:child_process';
import type { CommandRunner } from './types.js';

const TAIL_BYTES = 4_000;
const OUTPUT_BYTES = 64 * 1024;

/** Spawns an installer without a shell; keeps the end of its output for the log, and a shorter tail for the error message. */
export const runCommand: CommandRunner = (command, args, options) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) {
        resolve(output);
        return;
      }
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${String(code)}`;
      reject(new Error(`${command} ${how}: ${output.slice(-TAIL_BYTES).trim()}`));
    });
  });

/**
 * A few lines of an installer's failure, short enough for a 400 message: the first lines that say
 * "error" (npm and pip put the cause there), else the last lines of its output.
 */
export function failureSummary(error: unknown, count = 3): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    // npm ends every failure with where its debug log went, and pads with bare status lines.
    .filter((line) => line !== '' && !line.includes('complete log of this run') && !/^npm error( \d+)?$/.test(line));
  const errors = lines.filter((line) => /error/i.test(line));
  return (errors.length > 0 ? errors.slice(0, count) : lines.slice(-count)).join(' | ');
}
