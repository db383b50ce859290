const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);
const HOST = /^(?:localhost|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+|\[[0-9a-fA-F:]+\])(?::\d+)?$|^[a-zA-Z0-9-]+:\d+$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** An OCI reference taken apart: `host` empty for a name without a registry (a local build tag). */
export interface OciName {
  host: string;
  repository: string;
  tag: string;
  digest: string;
}

/**
 * Parses `[host[:port]/]repository[:tag][@sha256:…]` as the distribution spec writes it; the first
 * segment is a host when it has a dot or a port or is `localhost`. Undefined when it is not one.
 */
export function parseOciName(reference: string): OciName | undefined {
  const [named = '', digest = '', extra] = reference.split('@');
  if (extra !== undefined || (digest !== '' && !DIGEST.test(digest))) return undefined;
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > slash ? named.slice(colon + 1) : '';
  const path = colon > slash ? named.slice(0, colon) : named;
  if (tag !== '' && !TAG.test(tag)) return undefined;
  const first = path.split('/')[0] ?? '';
  const hasHost = path.includes('/') && HOST.test(first) && (first.includes('.') || first.includes(':') || first === 'localhost' || first.startsWith('['));
  const host = hasHost ? first : '';
  const repository = hasHost ? path.slice(first.length + 1) : path;
  if (!REPOSITORY.test(repository)) return undefined;
  return { host, repository, tag, digest };
}

export const formatOciName = (name: OciName): string =>
  `${name.host === '' ? '' : `${name.host}/`}${name.repository}${name.tag === '' ? '' : `:${name.tag}`}${name.digest === '' ? '' : `@${name.digest}`}`;
