import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Envelope } from '../../core/signing/envelope.js';
import type { RuntimePaths } from '../paths.js';
import { readStateFile, withFileLock, writeFileAtomic } from '../state/files.js';
import { EnterpriseSettingsSchema, HeldEnvelopeSchema, RefreshRecordSchema, type EnterpriseSettings, type RefreshRecord } from './schemas.js';

export interface EnterpriseStore {
  readSettings: () => Promise<EnterpriseSettings | undefined>;
  writeSettings: (settings: EnterpriseSettings) => Promise<void>;
  readEnvelope: () => Promise<Envelope | undefined>;
  /** The envelope's text exactly as the platform sent it. */
  writeEnvelope: (text: string) => Promise<void>;
  readRefresh: () => Promise<RefreshRecord | undefined>;
  writeRefresh: (record: RefreshRecord) => Promise<void>;
  /** Forgets the platform, its envelope and the refresh record. */
  clear: () => Promise<void>;
  /** One refresh at a time across the API server and the CLI. */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The enterprise configuration's files under the state directory, each written atomically. */
export function createEnterpriseStore(paths: RuntimePaths): EnterpriseStore {
  const dir = join(paths.state, 'enterprise');
  const settings = join(dir, 'settings.json');
  const envelope = join(dir, 'envelope.json');
  const refresh = join(dir, 'refresh.json');
  return {
    readSettings: () => readStateFile(settings, EnterpriseSettingsSchema),
    writeSettings: (value) => writeFileAtomic(settings, json(value)),
    readEnvelope: () => readStateFile(envelope, HeldEnvelopeSchema),
    writeEnvelope: (text) => writeFileAtomic(envelope, text),
    readRefresh: () => readStateFile(refresh, RefreshRecordSchema),
    writeRefresh: (record) => writeFileAtomic(refresh, json(record)),
    clear: async () => {
      await Promise.all([settings, envelope, refresh].map((file) => rm(file, { force: true })));
    },
    exclusive: (fn) => withFileLock(join(dir, 'refresh.lock'), fn),
  };
}
