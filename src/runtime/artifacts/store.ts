import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import type { RuntimePaths } from '../paths.js';
import { readStateFile, withFileLock, writeFileAtomic } from '../state/files.js';
import type { Kind } from './kinds.js';

export const Scope = Type.Union([Type.Literal('user'), Type.Literal('project')]);
export type Scope = Static<typeof Scope>;

export const ProvenanceSchema = Type.Object({
  cert_issuer: Type.String(),
  provisional: Type.Boolean(),
  public_key: Type.String(),
  repository_ref: Type.String(),
  repository_uri: Type.String(),
  runner_environment: Type.String(),
  signer_identity: Type.String(),
  sigstore_url: Type.String(),
});

export const RecordMetadata = Type.Object({
  author: Type.String(),
  description: Type.String(),
  license: Type.String(),
  name: Type.String(),
  version: Type.String(),
  tags: Type.Array(Type.String(), { description: 'skills: metadata.tags; plugins: keywords' }),
});

/** One installed skill or plugin: one per (name, scope, project_root), in `<state>/skills.json` or `plugins.json`. */
export const InstallRecord = Type.Object({
  name: Type.String(),
  scope: Scope,
  project_root: Type.String({ description: 'empty for user scope' }),
  clients: Type.Array(Type.String()),
  /** The reference as asked, never rewritten (the lock file's `source`). */
  source: Type.String(),
  /** Plugins: the marketplace `source` was looked up in (the lock file's `marketplace`); absent otherwise. */
  marketplace: Type.Optional(Type.String()),
  reference: Type.String(),
  digest: Type.String(),
  tag: Type.String(),
  content_digest: Type.String(),
  installed_at: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('installed'), Type.Literal('failed')]),
  group: Type.String(),
  /** Project scope with an entry in the lock file; stays true when the entry is later removed by hand, so sync can tell. */
  managed: Type.Boolean(),
  metadata: RecordMetadata,
  components: Type.Record(Type.String(), Type.Integer()),
  provenance: Type.Union([ProvenanceSchema, Type.Null()]),
  unsigned: Type.Boolean(),
  /** The verified signature bundle, its public key and the signed manifest: sync verifies them again offline. */
  signature: Type.Optional(Type.Object({ bundle: Type.Unknown(), public_key: Type.String(), manifest: Type.String() })),
});
export type InstallRecord = Static<typeof InstallRecord>;

const RecordsFile = Type.Object({ schema_version: Type.String(), records: Type.Array(InstallRecord) });
const SCHEMA_VERSION = '1.0.0';

export const sameTarget = (record: Pick<InstallRecord, 'name' | 'scope' | 'project_root'>, name: string, scope: Scope, projectRoot: string): boolean =>
  record.name === name && record.scope === scope && record.project_root === projectRoot;

/** The records file of one kind; changes are made under `withLock`, which every process shares. */
export interface RecordStore {
  list: () => Promise<InstallRecord[]>;
  write: (records: InstallRecord[]) => Promise<void>;
  withLock: <T>(fn: () => Promise<T>) => Promise<T>;
}

export function createRecordStore(paths: RuntimePaths, kind: Kind): RecordStore {
  const file = join(paths.state, `${kind}.json`);
  const read = async (): Promise<InstallRecord[]> => (await readStateFile(file, RecordsFile, { current: SCHEMA_VERSION }))?.records ?? [];
  return {
    list: read,
    write: (records) => writeFileAtomic(file, `${JSON.stringify({ schema_version: SCHEMA_VERSION, records }, null, 2)}\n`),
    withLock: (fn) => withFileLock(file, fn),
  };
}
