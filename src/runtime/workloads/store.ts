import { access, appendFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { RuntimePaths } from '../paths.js';
import { BrokenStateFileError, jsonPath, listJsonNames, readStateFile, withFileLock, writeFileAtomic } from '../state/files.js';
import { RegistryEntry, RUN_CONFIG_SCHEMA_VERSION, RunConfig, StatusRecord } from './schemas.js';

export type LogKind = 'server' | 'proxy';

/** The run configuration as saved: what export shows, plus the catalog entry of a registry-sourced workload. */
const RunConfigFile = Type.Composite([RunConfig, Type.Object({ registry_entry: Type.Optional(RegistryEntry) })]);

/** One workload's run configuration as listed: the configuration, or why its file cannot be used. */
export type StoredConfig = { name: string; config: RunConfig; broken?: undefined } | { name: string; config?: undefined; broken: BrokenStateFileError };

/**
 * The workload files: run configurations under the state directory, statuses and logs under data.
 * Reads check each file against its schema and throw BrokenStateFileError for one that fails.
 */
export interface WorkloadStore {
  readConfig: (name: string) => Promise<RunConfig | undefined>;
  /** Whether the workload has a run configuration, usable or not. */
  exists: (name: string) => Promise<boolean>;
  writeConfig: (config: RunConfig) => Promise<void>;
  /** Every workload, a broken file included, so one bad file never hides the others. */
  listConfigs: () => Promise<StoredConfig[]>;
  readStatus: (name: string) => Promise<StatusRecord | undefined>;
  writeStatus: (name: string, record: StatusRecord) => Promise<void>;
  /** Removes every file of the workload: configuration, status and logs. */
  remove: (name: string) => Promise<void>;
  logPath: (name: string, kind: LogKind) => string;
  /** Adds to a log before the supervisor writes to it (what the installer printed). */
  appendLog: (name: string, kind: LogKind, text: string) => Promise<void>;
  /** Serializes changes to one workload across processes. */
  withLock: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
}

export function createWorkloadStore(paths: RuntimePaths): WorkloadStore {
  const configs = join(paths.state, 'runconfigs');
  const statuses = join(paths.data, 'statuses');
  const logs = join(paths.data, 'logs');
  const locks = join(paths.state, 'locks');

  const readConfig = async (name: string): Promise<RunConfig | undefined> => {
    const path = jsonPath(configs, name);
    const config = await readStateFile(path, RunConfigFile, { current: RUN_CONFIG_SCHEMA_VERSION });
    // the file name is the workload's identity: a copied or renamed file would act on another workload
    if (config !== undefined && config.name !== name) throw new BrokenStateFileError(path, `it names the workload "${config.name}", not "${name}"`);
    return config;
  };
  const logPath = (name: string, kind: LogKind): string => join(logs, kind === 'server' ? `${name}.log` : `${name}.proxy.log`);

  return {
    readConfig,
    exists: (name) =>
      access(jsonPath(configs, name)).then(
        () => true,
        () => false,
      ),
    writeConfig: (config) => writeFileAtomic(jsonPath(configs, config.name), `${JSON.stringify(config, null, 2)}\n`),
    listConfigs: async () => {
      const found = await Promise.all(
        (await listJsonNames(configs)).map(async (name): Promise<StoredConfig | undefined> => {
          try {
            const config = await readConfig(name);
            return config === undefined ? undefined : { name, config };
          } catch (error) {
            if (error instanceof BrokenStateFileError) return { name, broken: error };
            throw error;
          }
        }),
      );
      return found.filter((stored) => stored !== undefined);
    },
    readStatus: (name) => readStateFile(jsonPath(statuses, name), StatusRecord),
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
    appendLog: async (name, kind, text) => {
      const path = logPath(name, kind);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await appendFile(path, text, { mode: 0o600 });
    },
    withLock: (name, fn) => withFileLock(join(locks, name), fn),
  };
}
