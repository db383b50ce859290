import { readFile } from 'node:fs/promises';

/**
 * A pid plus the kernel's start time of that process (field 22 of /proc/<pid>/stat, in clock ticks
 * since boot). Pids are recycled; the pair is not, so it proves a process is the one we recorded.
 */
export interface ProcessIdentity {
  pid: number;
  start_time: string;
}

export interface ProcessIdentityOptions {
  /** Where procfs is mounted; tests point it at a fake tree. */
  procRoot?: string;
}

export interface ProcessIdentities {
  /** The identity of a live process, or undefined when there is no such process (or it is a zombie). */
  identify: (pid: number) => Promise<ProcessIdentity | undefined>;
  /** Whether the recorded process still runs: same pid and same start time. */
  isAlive: (identity: ProcessIdentity | undefined) => Promise<boolean>;
}

interface StatFields {
  state: string;
  startTime: string;
}

/** The command name (field 2) is in parentheses and may itself contain spaces and parentheses. */
function parseStat(text: string): StatFields | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the command name, field 3 (state) is at index 0, so field 22 (starttime) is at index 19.
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { state, startTime };
}

export function createProcessIdentities(options: ProcessIdentityOptions = {}): ProcessIdentities {
  const procRoot = options.procRoot ?? '/proc';

  const identify = async (pid: number): Promise<ProcessIdentity | undefined> => {
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    let text: string;
    try {
      text = await readFile(`${procRoot}/${String(pid)}/stat`, 'utf8');
    } catch {
      return undefined;
    }
    const stat = parseStat(text);
    // A zombie has exited and only waits to be reaped; it must not count as running.
    if (stat === undefined || stat.state === 'Z' || stat.state === 'X') return undefined;
    return { pid, start_time: stat.startTime };
  };

  return {
    identify,
    isAlive: async (identity) => {
      if (identity === undefined) return false;
      const current = await identify(identity.pid);
      return current !== undefined && current.start_time === identity.start_time;
    },
  };
}
