import type { Clock } from '../../core/clock.js';
import type { StatusRecord } from './schemas.js';
import type { WorkloadStore } from './store.js';
import type { SupervisorControl } from './supervision.js';

/**
 * A fake SupervisorControl for service tests: no process is spawned; it writes status files the way
 * a supervisor would and keeps "live" pids in memory, so a test can kill one or fail a start.
 */
export interface FakeSupervisor {
  control: SupervisorControl;
  starts: string[];
  stops: string[];
  /** Names whose next start fails with this reason. */
  failNextStart: Map<string, string>;
  /** Makes the supervisor of `name` vanish without a word, as a crash would. */
  killSupervisor: (name: string) => void;
  killServer: (name: string) => void;
  /** Stops wait for this while set, so a test can see the `stopping` status. */
  stopGate: Promise<void> | undefined;
}

export function createFakeSupervisor(store: WorkloadStore, clock: Clock): FakeSupervisor {
  const liveSupervisors = new Map<number, string>();
  const liveServers = new Map<number, string>();
  let nextPid = 40_000;
  const pidsOf = (live: Map<number, string>, name: string): number[] => [...live].filter(([, owner]) => owner === name).map(([pid]) => pid);

  const fake: FakeSupervisor = {
    starts: [],
    stops: [],
    failNextStart: new Map(),
    stopGate: undefined,
    killSupervisor: (name) => pidsOf(liveSupervisors, name).forEach((pid) => liveSupervisors.delete(pid)),
    killServer: (name) => pidsOf(liveServers, name).forEach((pid) => liveServers.delete(pid)),
    control: {
      start: async (name) => {
        fake.starts.push(name);
        const reason = fake.failNextStart.get(name);
        const now = clock.now().toISOString();
        if (reason !== undefined) {
          fake.failNextStart.delete(name);
          await store.writeStatus(name, { status: 'error', status_context: reason, started_at: now, restarts: 0, updated_at: now });
          throw new Error(reason);
        }
        const supervisor = nextPid++;
        const server = nextPid++;
        liveSupervisors.set(supervisor, name);
        liveServers.set(server, name);
        const record: StatusRecord = {
          status: 'running',
          status_context: '',
          started_at: now,
          supervisor: { pid: supervisor, start_time: 'fake' },
          server: { pid: server, start_time: 'fake' },
          restarts: 0,
          updated_at: now,
        };
        await store.writeStatus(name, record);
      },
      stop: async (name, record) => {
        fake.stops.push(name);
        await fake.stopGate;
        if (record?.supervisor !== undefined) liveSupervisors.delete(record.supervisor.pid);
        if (record?.server !== undefined) liveServers.delete(record.server.pid);
      },
      alive: (record) =>
        Promise.resolve({
          supervisor: record.supervisor !== undefined && liveSupervisors.has(record.supervisor.pid),
          server: record.server !== undefined && liveServers.has(record.server.pid),
        }),
    },
  };
  return fake;
}
