import { spawn } from 'node:child_process';

export interface ProcessResult {
  /** null when the program could not be started or was killed (timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ProcessOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Written to the program's stdin, so a password never appears in its arguments. */
  input?: string;
  timeoutMs?: number;
}

/** Runs a helper program (`secret-tool`, `security`, `op`); injectable so tests never reach a real keyring. */
export type ProcessRunner = (file: string, args: readonly string[], options: ProcessOptions) => Promise<ProcessResult>;

const MAX_OUTPUT = 16 * 1024 * 1024;

/** Spawns without a shell; never rejects, so callers decide what a failure means for them. */
export const runProcess: ProcessRunner = (file, args, options) =>
  new Promise((resolve) => {
    const child = spawn(file, args, {
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) child.kill();
      else into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    // a program that exits without reading its stdin would otherwise fail the write with EPIPE
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    child.on('error', (error) => {
      resolve({ code: null, stdout: '', stderr: error.message });
    });
    child.on('close', (code) => {
      resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
