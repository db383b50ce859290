import { readFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import { createJwksSource, type FetchLike } from '../core/signing/jwks-source.js';
import { describeVerdict, UnreadableExportError, verdictObject, verifyExport } from '../platform/tool-usage/verify-export.js';

const fetchText: FetchLike = (url, init) => fetch(url, init);

/** Exit codes of `platform verify-export`: 0 every chain verifies, 1 a chain is broken, 2 unreadable input. */
export async function verifyExportCommand(file: string, options: { jwks: string; allowGaps?: boolean; json?: boolean }): Promise<number> {
  let document: unknown;
  let keys: JWK[];
  try {
    document = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(`toolyard: cannot read ${file} as JSON: ${(error as Error).message}`);
    return 2;
  }
  try {
    keys = await createJwksSource(options.jwks, fetchText).keys(false);
  } catch (error) {
    console.error(`toolyard: cannot read the public keys at ${options.jwks}: ${(error as Error).message}`);
    return 2;
  }
  let verdicts;
  try {
    verdicts = await verifyExport(document, keys, { allowGaps: options.allowGaps === true });
  } catch (error) {
    if (!(error instanceof UnreadableExportError)) throw error;
    console.error(`toolyard: ${file}: ${error.message}`);
    return 2;
  }
  if (verdicts.length === 0) verdicts = [{ status: 'ok' as const, chain: '', first: 0, last: 0, signed_through: 0 }];
  for (const verdict of verdicts) console.log(options.json ? JSON.stringify(verdictObject(verdict)) : describeVerdict(verdict));
  return verdicts.every((verdict) => verdict.status === 'ok') ? 0 : 1;
}
