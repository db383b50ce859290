import { BUNDLE_V03_MEDIA_TYPE } from '@sigstore/bundle';
import { describe, expect, it } from 'vitest';
import { BUNDLE_ARTIFACT_TYPE } from './signature-format.js';

describe('signature format', () => {
  it('attaches and finds bundles under the media type sigstore gives v0.3 bundles', () => {
    expect(BUNDLE_ARTIFACT_TYPE).toBe(BUNDLE_V03_MEDIA_TYPE);
  });
});
