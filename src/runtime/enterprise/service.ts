import type { JWK } from 'jose';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { parseDuration } from '../../core/config/duration.js';
import { DomainError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { Directive, Envelope, JwksSource } from '../../core/signing/envelope.js';
import { createJwksSource } from '../../core/signing/jwks-source.js';
import type { RuntimePaths } from '../paths.js';
import { BadGatewayError } from '../registry/errors.js';
import { modeOf, type ModeVerdict } from './mode.js';
import { createPlatformClient, readToken, UnreachableError, type PlatformClient, type PlatformFetch } from './platform-client.js';
import type { EnterpriseSet, EnterpriseSettings, EnterpriseStatus, RefreshRecord } from './schemas.js';
import { createEnterpriseStore } from './store.js';

/** What the decorators enforce: the last valid envelope's directives and the mode in force. */
export interface AppliedConfiguration {
  directives: Record<string, Directive>;
  verdict: ModeVerdict;
}

export interface EnterpriseService {
  /** Discovers the platform, fetches and verifies its envelope, and only then keeps the URL (and applies the envelope). */
  set: (request: EnterpriseSet) => Promise<EnterpriseStatus>;
  status: () => Promise<EnterpriseStatus>;
  /** Forgets the platform and its envelope: nothing is enforced any more. */
  unset: () => Promise<void>;
  /** Asks the platform now (If-None-Match the held etag); a refused or missing answer keeps the held envelope. */
  refresh: () => Promise<EnterpriseStatus>;
  /** Undefined when no enterprise configuration is set. */
  applied: () => Promise<AppliedConfiguration | undefined>;
  /** When to ask again: the envelope's refresh_interval, or a minute while none is held. */
  nextRefreshMs: () => Promise<number | undefined>;
}

export interface EnterpriseServiceOptions {
  paths: RuntimePaths;
  clock: Clock;
  logger: Logger;
  /** This runtime's version, sent as X-Client-Version. */
  version: string;
  fetch?: PlatformFetch;
  /** Bound on each request to the platform (default 10 s). */
  timeoutMs?: number;
}

const MINUTE = 60_000;

export function createEnterpriseService(options: EnterpriseServiceOptions): EnterpriseService {
  const { clock, logger } = options;
  const store = createEnterpriseStore(options.paths);
  const client: PlatformClient = createPlatformClient({ fetch: options.fetch ?? ((url, init) => fetch(url, init)), version: options.version, timeoutMs: options.timeoutMs ?? 10_000 });
  // the public keys are kept across refreshes; an unknown kid (a rotation) reads them again
  const keys = new Map<string, JWK[]>();
  const jwksFor = (settings: EnterpriseSettings, token: string | undefined): JwksSource => ({
    keys: async (refresh) => {
      const held = keys.get(settings.jwks_uri);
      if (held && !refresh) return held;
      const fresh = await createJwksSource(settings.jwks_uri, client.fetchText(settings.config_url, token)).keys(true);
      keys.set(settings.jwks_uri, fresh);
      return fresh;
    },
  });

  /** Verifies a fetched envelope; only one judged `applied` may be written over the held one. */
  const judge = async (settings: EnterpriseSettings, token: string | undefined, text: string, held: Envelope | undefined): Promise<Pick<RefreshRecord, 'outcome' | 'error'>> => {
    // jose loads when an envelope is verified or read, not with every CLI verb
    const { verifyEnvelope } = await import('../../core/signing/envelope.js');
    const verdict = await verifyEnvelope(text, { jwks: jwksFor(settings, token), now: clock.now(), ...(held && { previousIssuedAt: new Date(held.issued_at) }) }).catch((error: unknown) => {
      if (error instanceof UnreachableError) throw error;
      throw new BadGatewayError(`cannot read the public keys at ${settings.jwks_uri}: ${(error as Error).message}`);
    });
    if (verdict.status === 'invalid') return { outcome: 'refused', error: `the platform's envelope was refused: ${verdict.reason}` };
    if (verdict.status === 'expired') return { outcome: 'expired', error: `the platform's envelope expired at ${verdict.envelope.not_after} and was not applied` };
    return { outcome: 'applied', error: '' };
  };

  const fetchOnce = async (settings: EnterpriseSettings, held: Envelope | undefined): Promise<Pick<RefreshRecord, 'outcome' | 'error'>> => {
    try {
      const token = await readToken(settings.token_file);
      const answer = await client.envelope(settings.config_url, held?.etag, token);
      if (answer.status === 'not_modified') return held ? { outcome: 'not_modified', error: '' } : { outcome: 'refused', error: 'the platform answered 304 to a first request' };
      const result = await judge(settings, token, answer.text, held);
      if (result.outcome === 'applied') await store.writeEnvelope(answer.text);
      return result;
    } catch (error) {
      return { outcome: error instanceof UnreachableError ? 'unreachable' : 'refused', error: (error as Error).message };
    }
  };

  const status = async (): Promise<EnterpriseStatus> => {
    const settings = await store.readSettings();
    if (!settings) {
      return { configured: false, platform_url: '', config_url: '', jwks_uri: '', token_file: '', mode: 'none', reason: 'no enterprise configuration is set', message: '', policy: '', blocks_new_workloads: false, envelope: null, last_refresh: null };
    }
    const [held, refresh] = await Promise.all([store.readEnvelope(), store.readRefresh()]);
    const verdict = modeOf(held, refresh, clock.now());
    const { readDetachedHeader } = await import('../../core/signing/detached-jws.js');
    return {
      configured: true,
      platform_url: settings.platform_url,
      config_url: settings.config_url,
      jwks_uri: settings.jwks_uri,
      token_file: settings.token_file ?? '',
      mode: verdict.mode,
      reason: verdict.reason,
      message: verdict.message,
      policy: held?.degraded_mode.policy ?? '',
      blocks_new_workloads: verdict.blocksNew,
      envelope: held
        ? { kid: readDetachedHeader(held.signature)?.kid ?? '', etag: held.etag, issued_at: held.issued_at, not_after: held.not_after, refresh_interval: held.refresh_interval, grace_period: held.degraded_mode.grace_period, directives: held.config }
        : null,
      last_refresh: refresh ?? null,
    };
  };

  const record = async (result: Pick<RefreshRecord, 'outcome' | 'error'>, previous: RefreshRecord | undefined): Promise<void> => {
    const at = clock.now().toISOString();
    const succeeded = result.outcome === 'applied' || result.outcome === 'not_modified';
    await store.writeRefresh({ at, ...result, last_success_at: succeeded ? at : (previous?.last_success_at ?? '') });
    if (!succeeded) logger.warn({ outcome: result.outcome, error: result.error }, 'enterprise configuration not refreshed');
  };

  /**
   * The platform a URL leads to, with its first valid envelope. Anything short of that is the given
   * URL's fault as far as this request goes (400 naming `url`), and nothing is kept.
   */
  const usable = async (request: EnterpriseSet, token: string | undefined): Promise<{ settings: EnterpriseSettings; text: string }> => {
    try {
      const endpoints = await client.discover(request.url, token);
      const settings: EnterpriseSettings = { platform_url: request.url, ...endpoints, ...(request.token_file !== undefined && { token_file: request.token_file }) };
      const answer = await client.envelope(settings.config_url, undefined, token);
      if (answer.status !== 'ok') throw new BadGatewayError(`${settings.config_url} answered 304 to a request without If-None-Match`);
      // read the keys afresh: a key retired since an earlier fetch must not vouch for this envelope
      keys.delete(settings.jwks_uri);
      const result = await judge(settings, token, answer.text, undefined);
      if (result.outcome !== 'applied') throw new BadGatewayError(result.error);
      return { settings, text: answer.text };
    } catch (error) {
      if (error instanceof InvalidInputError || !(error instanceof DomainError)) throw error;
      throw new InvalidInputError(`url: cannot use ${request.url}: ${error.message}`);
    }
  };

  return {
    set: async (request) => {
      const token = await readToken(request.token_file);
      const { settings, text } = await usable(request, token);
      await store.exclusive(async () => {
        await store.clear();
        await store.writeEnvelope(text);
        await store.writeSettings(settings);
        await record({ outcome: 'applied', error: '' }, undefined);
      });
      return status();
    },
    status,
    unset: () => store.exclusive(() => store.clear()),
    refresh: async () => {
      await store.exclusive(async () => {
        const settings = await store.readSettings();
        if (!settings) throw new NotFoundError('no enterprise configuration is set (toolyard runtime enterprise set <url>)');
        const [held, previous] = await Promise.all([store.readEnvelope(), store.readRefresh()]);
        await record(await fetchOnce(settings, held), previous);
      });
      return status();
    },
    applied: async () => {
      const settings = await store.readSettings();
      if (!settings) return undefined;
      const [held, refresh] = await Promise.all([store.readEnvelope(), store.readRefresh()]);
      return { directives: held?.config ?? {}, verdict: modeOf(held, refresh, clock.now()) };
    },
    nextRefreshMs: async () => {
      if (!(await store.readSettings())) return undefined;
      const held = await store.readEnvelope();
      return Math.max(MINUTE, (held && parseDuration(held.refresh_interval)) ?? MINUTE);
    },
  };
}
