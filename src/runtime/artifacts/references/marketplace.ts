import { cp, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { BadGatewayError, InvalidInputError, NotFoundError } from '../../../core/errors.js';
import { privateHostLiteral } from '../../../core/net/address-guard.js';
import { entryManifest, entrySource, findEntry, parseMarketplace, type Marketplace } from '../../plugins/marketplace.js';
import { MANIFEST_FILE } from '../../plugins/validate.js';
import { contentDigest } from '../digest.js';
import { formatGitReference, parseGitReference, type GitReference } from './git.js';
import type { ChainResolver, Fetched, ResolveContext } from './resolver.js';

const MARKETPLACE_FILE = '.claude-plugin/marketplace.json';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A loaded marketplace and where its `./x` sources live: a fetched repository, a local folder, or nowhere (a bare URL). */
interface Loaded {
  marketplace: Marketplace;
  root: { dir: string; git?: GitReference } | undefined;
}

async function writeListedManifest(dir: string, manifest: string): Promise<void> {
  await mkdir(join(dir, dirname(MANIFEST_FILE)), { recursive: true });
  await writeFile(join(dir, MANIFEST_FILE), manifest);
}

const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

async function readMarketplace(path: string, where: string): Promise<Marketplace> {
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw missing(error) ? new NotFoundError(`${where} has no ${MARKETPLACE_FILE}`) : error;
  });
  return parseMarketplace(text, where);
}

async function fetchMarketplace(location: string): Promise<Marketplace> {
  const url = new URL(location);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) throw new InvalidInputError(`marketplace ${location}: http is only allowed on loopback; use https`);
  const literal = LOOPBACK.has(url.hostname) ? undefined : privateHostLiteral(url.hostname);
  if (literal !== undefined) throw new InvalidInputError(`marketplace host ${url.hostname} is a private address (${literal}); only loopback and public hosts are allowed`);
  const response = await fetch(url, { redirect: 'error' }).catch(() => {
    throw new BadGatewayError(`marketplace ${url.host}${url.pathname} could not be fetched`);
  });
  if (response.status === 404) throw new NotFoundError(`marketplace ${location} does not exist`);
  if (!response.ok) throw new BadGatewayError(`marketplace ${url.host}${url.pathname} answered ${response.status}`);
  return parseMarketplace(await response.text(), location);
}

/**
 * Plugins named in a marketplace (clarification point 3(e)): the name is looked up in the
 * marketplace instead of the reference chain, and its source is then fetched through the chain.
 */
export function withMarketplaces(chain: ChainResolver): ChainResolver {
  const load = async (location: string, context: ResolveContext): Promise<Loaded> => {
    if (location.startsWith('git://')) {
      const git = parseGitReference(location) as GitReference;
      const fetched = await chain.resolve(formatGitReference(git), { ...context, scratch: join(context.scratch, 'marketplace') });
      const pinned = parseGitReference(fetched.reference) as GitReference;
      return { marketplace: await readMarketplace(join(fetched.dir, MARKETPLACE_FILE), location), root: { dir: fetched.dir, git: pinned } };
    }
    if (isAbsolute(location)) {
      const folder = dirname(location);
      return { marketplace: await readMarketplace(location, location), root: { dir: basename(folder) === '.claude-plugin' ? dirname(folder) : folder } };
    }
    if (/^https?:\/\//.test(location)) return { marketplace: await fetchMarketplace(location), root: undefined };
    throw new InvalidInputError(`marketplace ${location} must be a git:// repository, the https URL of a marketplace.json or its absolute path`);
  };

  /** A `./x` source: the folder inside the fetched repository, or a copy of the local folder. */
  const inside = async (loaded: Loaded, relative: string, location: string, scratch: string): Promise<Fetched> => {
    if (loaded.root === undefined) throw new InvalidInputError(`marketplace ${location} is only a file, so its ./${relative} sources cannot be reached; give its git:// repository instead`);
    const source = join(loaded.root.dir, relative);
    if (!(await stat(source).catch(() => undefined))?.isDirectory()) throw new NotFoundError(`marketplace ${location} has no folder ./${relative}`);
    const { git } = loaded.root;
    if (git !== undefined) {
      const subdir = [git.subdir, relative].filter((part) => part !== '').join('/');
      return { dir: source, reference: formatGitReference({ ...git, subdir }), digest: git.ref, tag: '', provenance: null, unsigned: true };
    }
    const dir = join(scratch, 'local', basename(source));
    await cp(source, dir, { recursive: true });
    return { dir, reference: source, digest: await contentDigest(dir), tag: '', provenance: null, unsigned: true };
  };

  /** A pinned tree without plugin.json gets the one its marketplace entry lists (`strict: false`), as at its first install. */
  const withListedManifest = async (fetched: Fetched, from: { marketplace: string; name: string }, context: ResolveContext): Promise<Fetched> => {
    if (context.spec.kind !== 'plugins' || (await stat(join(fetched.dir, MANIFEST_FILE)).catch(() => undefined)) !== undefined) return fetched;
    const entry = findEntry((await load(from.marketplace, context)).marketplace, from.name, from.marketplace);
    if (entry.strict === false) await writeListedManifest(fetched.dir, entryManifest(entry));
    return fetched;
  };

  return {
    resolve: async (name, context) => {
      const location = context.marketplace;
      if (location === undefined) return context.pinnedFrom === undefined ? chain.resolve(name, context) : withListedManifest(await chain.resolve(name, context), context.pinnedFrom, context);
      if (context.spec.kind !== 'plugins') throw new InvalidInputError(`marketplaces hold plugins, not ${context.spec.kind}`);
      const loaded = await load(location, context);
      const entry = findEntry(loaded.marketplace, name, location);
      const source = entrySource(entry);
      const scratch = join(context.scratch, 'plugin');
      await mkdir(scratch, { recursive: true });
      const fetched = 'relative' in source ? await inside(loaded, source.relative, location, scratch) : await chain.resolve(source.reference, { ...context, scratch });
      if (entry.strict === false) await writeListedManifest(fetched.dir, entryManifest(entry));
      return fetched;
    },
  };
}
