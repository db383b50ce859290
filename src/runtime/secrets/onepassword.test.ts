import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.js';
import { SecretsOperationNotSupportedError } from './errors.js';
import { createOnePasswordProvider } from './onepassword.js';
import { runProcess } from './process.js';

/** Answers like `op` for one vault; refuses to work without the service account token it expects. */
const FAKE_OP = `#!/bin/sh
if [ "$OP_SERVICE_ACCOUNT_TOKEN" != "ops_test" ]; then echo "[ERROR] authentication required" >&2; exit 1; fi
case "$1" in
  read)
    [ "$2" = "--no-newline" ] || exit 2
    if [ "$3" = "op://Private/GitHub/token" ]; then printf 'ghp_from_1password'; exit 0; fi
    echo "[ERROR] could not read secret '$3': \\"Nope\\" isn't an item in the \\"Private\\" vault" >&2; exit 1 ;;
  item)
    [ "$2 $3 $4" = "list --format json" ] || exit 2
    printf '[{"id":"a1","title":"GitHub","vault":{"id":"v1","name":"Private"}},{"id":"a2","title":"AWS","vault":{"id":"v1","name":"Private"}}]' ;;
  *) exit 2 ;;
esac
`;

describe('the 1password provider, against a fake op executable script', () => {
  let op: string;
  beforeAll(async () => {
    op = join(await mkdtemp(join(tmpdir(), 'toolyard-op-')), 'op');
    await writeFile(op, FAKE_OP);
    await chmod(op, 0o755);
  });
  const provider = (token: string) => createOnePasswordProvider({ op, env: { PATH: '/usr/bin:/bin', OP_SERVICE_ACCOUNT_TOKEN: token }, run: runProcess });

  it('reads an op:// reference and answers undefined for one that names nothing', async () => {
    const secrets = provider('ops_test');
    expect(await secrets.get('op://Private/GitHub/token')).toBe('ghp_from_1password');
    expect(await secrets.get('op://Private/Nope/token')).toBeUndefined();
    expect(await secrets.get('github-token')).toBeUndefined();
  });

  it('lists items as op://vault/item references', async () => {
    expect(await provider('ops_test').list()).toEqual(['op://Private/AWS', 'op://Private/GitHub']);
  });

  it('reports a failing op as unavailable, not as a missing secret', async () => {
    const secrets = provider('wrong');
    await expect(secrets.get('op://Private/GitHub/token')).rejects.toThrow(UnavailableError);
    await expect(secrets.list()).rejects.toThrow('1Password CLI could not list items: [ERROR] authentication required');
  });

  it('cannot write or delete', async () => {
    const secrets = provider('ops_test');
    expect(secrets.capabilities).toEqual({ read: true, write: false, list: true, delete: false });
    await expect(secrets.set('x', 'y', 'new')).rejects.toThrow(SecretsOperationNotSupportedError);
    await expect(secrets.delete('x')).rejects.toThrow(SecretsOperationNotSupportedError);
  });
});
