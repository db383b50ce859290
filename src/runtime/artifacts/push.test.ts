import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.js';
import { BadGatewayError, UnauthenticatedError } from '../../core/errors.js';
import { keylessSigner } from './keyless.js';
import { SKILLS } from './kinds.js';
import { createLayoutStore, type LayoutStore } from './layout.js';
import { createPushService } from './push.js';
import type { OciClient } from './references/oci-client.js';

const TAG = 'registry.example.com/skills/code-review:1.0.0';

describe('pushing a build when the registry refuses it', () => {
  let dir: string;
  let layout: LayoutStore;
  const refusing = (error: Error): OciClient => ({ manifest: () => Promise.reject(error), blob: () => Promise.reject(error), push: () => Promise.reject(error), referrers: () => Promise.reject(error) });
  const pushWith = (error: Error) => createPushService({ spec: SKILLS, layout, registry: refusing(error), keyless: keylessSigner({}), stateDir: dir, clock: systemClock }).push({ reference: TAG, no_sign: true });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-push-'));
    layout = createLayoutStore(dir);
    await layout.put({ tag: TAG, artifactType: SKILLS.artifactType, annotations: {}, layer: Buffer.from('layer') });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 403 when the registry wants credentials, and 500 naming the cause for anything else', async () => {
    await expect(pushWith(new UnauthenticatedError('pushing x: the registry needs credentials (HTTP 401)'))).rejects.toMatchObject({ status: 403, message: 'pushing x: the registry needs credentials (HTTP 401)' });
    await expect(pushWith(new BadGatewayError('pushing x: the registry could not be reached'))).rejects.toMatchObject({ status: 500, message: 'pushing x: the registry could not be reached' });
  });
});
