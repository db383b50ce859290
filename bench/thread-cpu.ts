import { readdirSync, readFileSync } from 'node:fs';

/*
 * CPU time per thread of this process, read from /proc (Linux): the main thread apart from the others (the
 * embedded database's thread, V8's compiler and collector threads). Elsewhere nothing is known: undefined.
 */

/** Linux reports thread CPU in ticks of 1/100 s. */
const TICK_MS = 10;

export type ThreadTicks = Map<string, number>;

export function threadTicks(): ThreadTicks | undefined {
  try {
    const ticks: ThreadTicks = new Map();
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // the fields after the thread's name, which may itself hold spaces and parentheses
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(tid, Number(fields[11]) + Number(fields[12]));
    }
    return ticks;
  } catch {
    return undefined;
  }
}

/** Milliseconds of CPU between two readings: the main thread's, and that of all the others together. */
export function threadCpuSince(before: ThreadTicks | undefined, after: ThreadTicks | undefined): { mainMs: number; otherMs: number } | undefined {
  if (!before || !after) return undefined;
  let mainMs = 0;
  let otherMs = 0;
  for (const [tid, ticks] of after) {
    const ms = (ticks - (before.get(tid) ?? 0)) * TICK_MS;
    if (tid === String(process.pid)) mainMs += ms;
    else otherMs += ms;
  }
  return { mainMs, otherMs };
}
