import { stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Validation } from '../skills/validate.js';
import { snapshotFolder } from './folder.js';
import type { KindSpec } from './kinds.js';
import { TITLE, VERSION, type LayoutStore } from './layout.js';
import { packFolder, unpackLayer } from './pack.js';
import { formatOciName, parseOciName } from './references/oci-name.js';

export interface Build {
  tag: string;
  digest: string;
  name: string;
  version: string;
}

/** A local build unpacked for installing: the folder, the manifest digest (the pin) and the tag. */
export interface UnpackedBuild {
  dir: string;
  digest: string;
  tag: string;
}

export interface BuildService {
  validate: (path: string) => Promise<Omit<Validation, 'blocking'>>;
  build: (input: { path: string; tag?: string | undefined }) => Promise<{ reference: string }>;
  list: () => Promise<Build[]>;
  remove: (tag: string) => Promise<void>;
  /** Unpacks the build tagged `tag` into a new folder under `parent`; undefined when there is none. */
  unpack: (tag: string, parent: string) => Promise<UnpackedBuild | undefined>;
}

/** `path` must name an existing folder by its absolute path: the runtime's working directory is no one's business. */
export async function checkFolder(path: string): Promise<void> {
  if (!isAbsolute(path)) throw new InvalidInputError(`path "${path}" must be an absolute path`);
  const stats = await stat(path).catch(() => undefined);
  if (stats === undefined) throw new InvalidInputError(`path ${path} does not exist`);
  if (!stats.isDirectory()) throw new InvalidInputError(`path ${path} is not a folder`);
}

/** `code-review:1.0.0`, or the given reference with `:latest` when it names no tag or digest. */
function buildTag(given: string | undefined, name: string, version: string): string {
  if (given === undefined || given === '') return `${name}:${version === '' ? 'latest' : version}`;
  const parsed = parseOciName(given);
  if (parsed === undefined || parsed.digest !== '') throw new InvalidInputError(`tag "${given}" is not an OCI reference of the form [host/]repository[:tag]`);
  return formatOciName({ ...parsed, tag: parsed.tag === '' ? 'latest' : parsed.tag });
}

export function createBuildService(options: { spec: KindSpec; layout: LayoutStore }): BuildService {
  const { spec, layout } = options;
  const validateAt = async (path: string): Promise<Validation> => {
    await checkFolder(path);
    return spec.validate(await snapshotFolder(path, basename(path)));
  };
  return {
    validate: async (path) => {
      const { valid, errors, warnings } = await validateAt(path);
      return { valid, errors, warnings };
    },
    build: async ({ path, tag }) => {
      const validation = await validateAt(path);
      if (!validation.valid) throw new InvalidInputError(`the ${spec.singular} at ${path} is not valid: ${validation.errors.join('; ')}`);
      const identity = spec.identify(await snapshotFolder(path, basename(path)));
      const reference = buildTag(tag, identity.name, identity.version);
      const annotations = { [TITLE]: identity.name, ...(identity.version !== '' && { [VERSION]: identity.version }) };
      await layout.put({ tag: reference, artifactType: spec.artifactType, annotations, layer: await packFolder(path) });
      return { reference };
    },
    list: async () =>
      (await layout.list())
        .filter((entry) => entry.artifactType === spec.artifactType)
        .map((entry) => ({ tag: entry.tag, digest: entry.digest, name: entry.annotations[TITLE] ?? '', version: entry.annotations[VERSION] ?? '' }))
        .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)),
    remove: async (tag) => {
      if (!(await layout.remove(tag, spec.artifactType))) throw new NotFoundError(`no ${spec.singular} build is tagged ${tag}`);
    },
    unpack: async (tag, parent) => {
      const found = await layout.read(tag, spec.artifactType);
      if (found === undefined) return undefined;
      return { dir: await unpackLayer(found.layer, parent), digest: found.entry.digest, tag };
    },
  };
}
