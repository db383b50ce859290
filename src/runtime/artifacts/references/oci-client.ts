import { BadGatewayError, NotFoundError, RateLimitedError, UnauthenticatedError } from '../../../core/errors.js';
import { GatewayTimeoutError } from '../../registry/errors.js';
import { sha256 } from '../digest.js';
import { INDEX_MEDIA_TYPE, MANIFEST_MEDIA_TYPE } from '../layout.js';
import { formatOciName, type OciName } from './oci-name.js';

const METADATA_TIMEOUT_MS = 30_000;
const TRANSFER_TIMEOUT_MS = 120_000;
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/;
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** A manifest as the registry sent it: the bytes (which the pin is the digest of) and their digest. */
export interface PulledManifest {
  digest: string;
  bytes: Buffer;
}

/** A blob to push, by its digest. */
export interface PushBlob {
  digest: string;
  data: Buffer;
}

/** What the registry said to a manifest push. */
export interface PushedManifest {
  digest: string;
  /** The registry answered `OCI-Subject`: it indexes the manifest's `subject` itself (the referrers API). */
  subjectIndexed: boolean;
}

/** The parts of the OCI distribution API the runtime uses to push and pull one-manifest artifacts and their referrers. */
export interface OciClient {
  /** The manifest (by default an image manifest) named by the tag or digest of `name`, its digest checked against what was asked and what the registry says. */
  manifest: (name: OciName, mediaType?: string) => Promise<PulledManifest>;
  /** A blob of the repository, checked against its digest and size. */
  blob: (name: OciName, digest: string, size: number) => Promise<Buffer>;
  /** Uploads the blobs the registry lacks, then the manifest under the name's digest, else its tag. */
  push: (name: OciName, input: { blobs: readonly PushBlob[]; manifest: Buffer; mediaType?: string }) => Promise<PushedManifest>;
  /** The referrers API's image index for a manifest digest; undefined when the registry does not serve that API (404). */
  referrers: (name: OciName, digest: string) => Promise<Buffer | undefined>;
}

/** Plain http only for a registry on this machine: anything crossing a network speaks TLS. */
export const registryBase = (host: string): string => `${LOOPBACK.test(host) ? 'http' : 'https'}://${host}/v2/`;

/** Maps a registry's answer to the statuses of clarification point 15; the message names the artifact, never credentials. */
function statusError(response: Response, what: string): Error {
  if (response.status === 401 || response.status === 403) return new UnauthenticatedError(`${what}: the registry needs credentials (HTTP ${String(response.status)})`);
  if (response.status === 404) return new NotFoundError(`${what}: the registry has no such repository, tag or blob`);
  if (response.status === 429) return new RateLimitedError(`${what}: the registry is rate limiting; retry later`, response.headers.get('retry-after') ?? undefined);
  return new BadGatewayError(`${what}: the registry answered HTTP ${String(response.status)}`);
}

/** `Bearer realm="…",service="…",scope="…"` taken apart; undefined for another scheme. */
export function parseBearerChallenge(header: string | null): Record<string, string> | undefined {
  if (header === null || !/^bearer\s/i.test(header)) return undefined;
  const params: Record<string, string> = {};
  for (const match of header.slice(7).matchAll(/(\w+)="([^"]*)"/g)) params[(match[1] ?? '').toLowerCase()] = match[2] ?? '';
  return params.realm === undefined ? undefined : params;
}

async function send(url: string, init: RequestInit, what: string, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new GatewayTimeoutError(`${what}: the registry did not answer in ${String(timeoutMs / 1000)} s`);
    throw new BadGatewayError(`${what}: the registry could not be reached`);
  }
}

/** Reads the body under the same deadline; a body cut short is a bad upstream answer. */
async function body(response: Response, what: string): Promise<Buffer> {
  try {
    return Buffer.from(await response.arrayBuffer());
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new GatewayTimeoutError(`${what}: the registry stopped sending`);
    throw new BadGatewayError(`${what}: the registry's answer was cut short`);
  }
}

export function createOciClient(options: { metadataTimeoutMs?: number; transferTimeoutMs?: number } = {}): OciClient {
  const metadataMs = options.metadataTimeoutMs ?? METADATA_TIMEOUT_MS;
  const transferMs = options.transferTimeoutMs ?? TRANSFER_TIMEOUT_MS;
  const repositoryUrl = (name: OciName): string => `${registryBase(name.host)}${name.repository}`;
  /** Anonymous tokens by repository URL, so one pull does not ask for a token per blob. */
  const tokens = new Map<string, string>();

  /** Asks the token service the registry's challenge names for an anonymous token (the distribution token flow). */
  const fetchToken = async (challenge: Record<string, string>, what: string): Promise<string> => {
    const realm = URL.canParse(challenge.realm ?? '') ? new URL(challenge.realm ?? '') : undefined;
    if (realm === undefined) throw new BadGatewayError(`${what}: the registry's token service is not a URL`);
    if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && LOOPBACK.test(realm.host))) throw new BadGatewayError(`${what}: the registry's token service ${realm.origin} is not https`);
    if (challenge.service !== undefined) realm.searchParams.set('service', challenge.service);
    if (challenge.scope !== undefined) realm.searchParams.set('scope', challenge.scope);
    const response = await send(realm.toString(), {}, what, metadataMs);
    if (!response.ok) throw statusError(response, `${what} (token service)`);
    const answer = (await response.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
    const token = typeof answer.token === 'string' ? answer.token : answer.access_token;
    if (typeof token !== 'string' || token === '') throw new BadGatewayError(`${what}: the registry's token service gave no token`);
    return token;
  };

  /**
   * Sends with the token last granted for the repository; a Bearer challenge (none yet, or one for pull only
   * when pushing) is answered once with a fresh anonymous token for the scope it names.
   */
  const authorized = async (url: string, init: RequestInit, what: string, timeoutMs: number): Promise<Response> => {
    const repository = url.replace(/\/(?:manifests|blobs|referrers)\/.*$/, '');
    const withToken = (token: string | undefined): RequestInit => (token === undefined ? init : { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
    const response = await send(url, withToken(tokens.get(repository)), what, timeoutMs);
    const challenge = response.status === 401 ? parseBearerChallenge(response.headers.get('www-authenticate')) : undefined;
    if (challenge === undefined) return response;
    await response.body?.cancel();
    const token = await fetchToken(challenge, what);
    tokens.set(repository, token);
    return send(url, withToken(token), what, timeoutMs);
  };

  const request = async (url: string, init: RequestInit, what: string, timeoutMs: number, ok: (status: number) => boolean): Promise<Response> => {
    const response = await authorized(url, init, what, timeoutMs);
    if (!ok(response.status)) {
      await response.body?.cancel();
      throw statusError(response, what);
    }
    return response;
  };

  const uploadBlob = async (name: OciName, blob: PushBlob, what: string): Promise<void> => {
    const head = await authorized(`${repositoryUrl(name)}/blobs/${blob.digest}`, { method: 'HEAD' }, what, metadataMs);
    if (head.ok) return;
    if (head.status !== 404) throw statusError(head, what);
    const started = await request(`${repositoryUrl(name)}/blobs/uploads/`, { method: 'POST' }, what, metadataMs, (status) => status === 202);
    const location = started.headers.get('location');
    if (location === null) throw new BadGatewayError(`${what}: the registry started an upload without saying where`);
    const target = new URL(location, repositoryUrl(name));
    target.searchParams.set('digest', blob.digest);
    await request(target.toString(), { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: blob.data }, what, transferMs, (status) => status === 201);
  };

  return {
    manifest: async (name, mediaType = MANIFEST_MEDIA_TYPE) => {
      const what = `pulling ${formatOciName(name)}`;
      const response = await request(
        `${repositoryUrl(name)}/manifests/${name.digest !== '' ? name.digest : name.tag}`,
        { headers: { accept: mediaType } },
        what,
        metadataMs,
        (status) => status === 200,
      );
      // the distribution spec's own ceiling for manifests; a registry sending more is not answering the question
      const tooLarge = new BadGatewayError(`${what}: the manifest is over ${String(MAX_MANIFEST_BYTES / 1024 / 1024)} MiB`);
      if (Number(response.headers.get('content-length') ?? 0) > MAX_MANIFEST_BYTES) {
        await response.body?.cancel();
        throw tooLarge;
      }
      const bytes = await body(response, what);
      if (bytes.length > MAX_MANIFEST_BYTES) throw tooLarge;
      const digest = sha256(bytes);
      const said = response.headers.get('docker-content-digest');
      if ((name.digest !== '' && digest !== name.digest) || (said !== null && said.startsWith('sha256:') && said !== digest)) {
        throw new BadGatewayError(`${what}: the manifest the registry sent does not have the digest it should (${digest})`);
      }
      return { digest, bytes };
    },
    blob: async (name, digest, size) => {
      const what = `pulling ${formatOciName(name)} (blob ${digest})`;
      const response = await request(`${repositoryUrl(name)}/blobs/${digest}`, {}, what, transferMs, (status) => status === 200);
      const data = await body(response, what);
      if (data.length !== size || sha256(data) !== digest) throw new BadGatewayError(`${what}: the blob the registry sent does not match its digest`);
      return data;
    },
    push: async (name, { blobs, manifest, mediaType = MANIFEST_MEDIA_TYPE }) => {
      const what = `pushing ${formatOciName(name)}`;
      for (const blob of blobs) await uploadBlob(name, blob, what);
      const target = name.digest !== '' ? name.digest : name.tag;
      const response = await request(`${repositoryUrl(name)}/manifests/${target}`, { method: 'PUT', headers: { 'content-type': mediaType }, body: manifest }, what, transferMs, (status) => status === 201);
      await response.body?.cancel();
      return { digest: sha256(manifest), subjectIndexed: response.headers.has('oci-subject') };
    },
    referrers: async (name, digest) => {
      const what = `listing what refers to ${formatOciName({ ...name, tag: '', digest })}`;
      const response = await authorized(`${repositoryUrl(name)}/referrers/${digest}`, { headers: { accept: INDEX_MEDIA_TYPE } }, what, metadataMs);
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw statusError(response, what);
      }
      return body(response, what);
    },
  };
}
