import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RuntimePaths } from '../paths.js';
import { jsonPath, listJsonNames, readJsonFile, withFileLock, writeFileAtomic } from '../state/files.js';
import type { RunConfig, StatusRecord } from './schemas.js';

export type LogKind = 'server' | 'proxy';

/** The workload files: run configurations under the state directory, statuses and logs under data. */
export interface WorkloadStore {
  readConfig: (name: string) => Promise<RunConfig | undefined>;
  writeConfig: (config: RunConfig) => Promise<void>;
  listConfigs: () => Promise<RunConfig[]>;
  readStatus: (name: string) => Promise<StatusRecord | undefined>;
  writeStatus: (name: string, record: StatusRecord) => Promise<void>;
  /** Removes every file of the workload: configuration, status and logs. */
  remove: (name: string) => Promise<void>;
  logPath: (name: string, kind: LogKind) => string;
  /** Serializes changes to one workload across processes. */
  withLock: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
}

export function createWorkloadStore(paths: RuntimePaths): WorkloadStore {
  const configs = join(paths.state, 'runconfigs');
  const statuses = join(paths.data, 'statuses');
  const logs = join(paths.data, 'logs');
  const locks = join(paths.state, 'locks');

  const readConfig = async (name: string): Promise<RunConfig | undefined> =>
    (await readJsonFile(jsonPath(configs, name))) as RunConfig | undefined;
  const logPath = (name: string, kind: LogKind): string => join(logs, kind === 'server' ? `${name}.log` : `${name}.proxy.log`);

  return {
    readConfig,
    writeConfig: (config) => writeFileAtomic(jsonPath(configs, config.name), `${JSON.stringify(config, null, 2)}\n`),
    listConfigs: async () => {
      const found = await Promise.all((await listJsonNames(configs)).map(readConfig));
      return found.filter((config): config is RunConfig => config !== undefined);
    },
    readStatus: async (name) => (await readJsonFile(jsonPath(statuses, name))) as StatusRecord | undefined,
    writeStatus: (name, record) => writeFileAtomic(jsonPath(statuses, name), `${JSON.stringify(record)}\n`),
    remove: async (name) => {
      await Promise.all([
        rm(jsonPath(configs, name), { force: true }),
        rm(jsonPath(statuses, name), { force: true }),
        rm(logPath(name, 'server'), { force: true }),
        rm(logPath(name, 'proxy'), { force: true }),
      ]);
    },
    logPath,
    withLock: (name, fn) => withFileLock(join(locks, name), fn),
  };
}
