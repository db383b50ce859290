import { ANNOTATION, describeObject, isExported, readExport, type KubeObject } from '../../../../core/kubernetes/objects.js';
import { RecordError, serverRecord, type IngestRecord } from '../records.js';

export type ObjectOutcome =
  | { kind: 'ignored' }
  | { kind: 'entry'; record: IngestRecord }
  /** `error`: the object asked to be exported but its annotations are broken (counted as an error). */
  | { kind: 'skipped'; reason: string; error: boolean };

/** Turns one watched object into a server entry, or says why it is not one. */
export function exportedEntry(object: KubeObject, service: boolean): ObjectOutcome {
  if (!isExported(object)) return { kind: 'ignored' };
  const name = object.metadata?.annotations?.[ANNOTATION.name];
  if (name === undefined || name === '') return { kind: 'skipped', reason: `${describeObject(object, service)}: ${ANNOTATION.name} is missing`, error: false };
  const outcome = readExport(object, service);
  if (outcome.kind !== 'server') return outcome;
  const { where, annotations, transport, url, claims } = outcome.server;
  const server: Record<string, unknown> = { name };
  if (annotations[ANNOTATION.title] !== undefined) server.title = annotations[ANNOTATION.title];
  server.description = annotations[ANNOTATION.description] ?? '';
  server.version = annotations[ANNOTATION.version] ?? '1.0.0';
  server.remotes = [{ type: transport, url }];
  try {
    return { kind: 'entry', record: { ...serverRecord({ server }, false), claims } };
  } catch (error) {
    if (error instanceof RecordError) return { kind: 'skipped', reason: `${where}: ${error.message}`, error: false };
    throw error;
  }
}
