import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandRunner } from './types.js';

/** Puts executables with these names in `dir`, so PATH lookups find a toolchain that is not installed. */
export async function fakeToolchain(dir: string, names: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of names) {
    await writeFile(join(dir, name), '#!/bin/sh\nexit 1\n');
    await chmod(join(dir, name), 0o755);
  }
}

export interface RecordedRun {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A runner that records each installer call and lets the test create what the installer would have. */
export function recordingRunner(effect: (run: RecordedRun) => Promise<void>): { run: CommandRunner; calls: RecordedRun[] } {
  const calls: RecordedRun[] = [];
  return {
    calls,
    run: async (command, args, options) => {
      const call = { command, args: [...args], env: options.env };
      calls.push(call);
      await effect(call);
      return '';
    },
  };
}

export async function touchExecutable(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, '');
  await chmod(path, 0o755);
}
