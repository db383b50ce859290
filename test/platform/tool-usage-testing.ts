import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallUsage } from '../../src/platform/tool-usage/recorder.js';

/** EC P-256 signing keys in files, as the `signing` block names them, and their JWKS. */
export async function signingKeys(...kids: string[]): Promise<{ config: { keys: { kid: string; privateKeyFile: string }[] }; jwks: { keys: Record<string, unknown>[] } }> {
  const directory = await mkdtemp(join(tmpdir(), 'toolyard-tool-usage-'));
  const keys = [];
  const jwks = [];
  for (const kid of kids) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const privateKeyFile = join(directory, `${kid}.pem`);
    await writeFile(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    keys.push({ kid, privateKeyFile });
    jwks.push({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' });
  }
  return { config: { keys }, jwks: { keys: jwks } };
}

/** A tool call as the connector gateway records it; every field can be overridden. */
export function usageOf(overrides: Partial<ToolCallUsage> = {}): ToolCallUsage {
  const decision = overrides.decision ?? 'allowed';
  const outcome = overrides.outcome ?? 'ok';
  return {
    billable: decision === 'allowed' && outcome === 'ok',
    billable_reason: decision === 'denied' ? 'denied_by_policy' : outcome === 'ok' ? 'delivered' : 'upstream_error',
    call_id: randomUUID(),
    category: decision,
    connector_id: '00000000-0000-4000-8000-000000000001',
    connector_name: 'github',
    decision,
    definition_version: '2026-11-01T00:00:00.000Z',
    environment: 'production',
    gateway_id: 'default',
    groups: [],
    occurred_at: '2026-11-20T12:00:00.000Z',
    outcome,
    tool_name: 'search',
    user_email: null,
    user_id: '00000000-0000-4000-8000-0000000000aa',
    ...overrides,
  };
}
