import { readFileSync } from 'node:fs';
import { verifyEnvelope, type Envelope } from '../core/signing/envelope.js';
import { createJwksSource, discoverJwksUri, readLocation, type FetchLike } from '../core/signing/jwks-source.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const fetchText: FetchLike = (url, init) => fetch(url, init);

/** Exit codes of `platform verify-config`: 0 valid, 1 invalid, 2 expired. */
export async function verifyConfigCommand(location: string, options: { jwks?: string }): Promise<number> {
  const isUrl = /^https?:\/\//i.test(location);
  if (!isUrl && options.jwks === undefined) {
    console.error('toolyard: give the public keys with --jwks FILE|URL to verify an envelope from a file');
    return 1;
  }
  let text: string;
  let jwksLocation: string;
  try {
    text = await readLocation(location, fetchText, { 'x-client-type': 'service-cli', 'x-client-version': VERSION, accept: 'application/json' });
    jwksLocation = options.jwks ?? (await discoverJwksUri(location, fetchText));
  } catch (error) {
    console.error(`toolyard: ${(error as Error).message}`);
    return 1;
  }
  const verdict = await verifyEnvelope(text, { jwks: createJwksSource(jwksLocation, fetchText), now: new Date() }).catch((error: unknown) => ({
    status: 'invalid' as const,
    reason: `cannot read the public keys: ${(error as Error).message}`,
  }));
  if (verdict.status === 'invalid') {
    console.error(`invalid: ${verdict.reason}`);
    return 1;
  }
  console.log(describe(verdict.envelope, verdict.kid, verdict.status));
  return verdict.status === 'valid' ? 0 : 2;
}

function describe(envelope: Envelope, kid: string, status: 'valid' | 'expired'): string {
  const { degraded_mode: degraded } = envelope;
  const lines = [
    `${status}: signed by kid ${kid}`,
    `issued_at         ${envelope.issued_at}`,
    `not_after         ${envelope.not_after}`,
    `refresh_interval  ${envelope.refresh_interval}`,
    `degraded_mode     ${degraded.policy} after a grace period of ${degraded.grace_period}${degraded.message === '' ? '' : `: ${degraded.message}`}`,
    `etag              ${envelope.etag}`,
  ];
  const directives = Object.entries(envelope.config).sort(([a], [b]) => a.localeCompare(b));
  lines.push(directives.length === 0 ? 'directives        none' : 'directives:');
  for (const [name, directive] of directives) lines.push(`  ${directive.enforcement.padEnd(8)}  ${name} = ${JSON.stringify(directive.value)}`);
  return lines.join('\n');
}
