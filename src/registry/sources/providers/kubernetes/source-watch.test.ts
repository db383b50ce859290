import { describe, expect, it } from 'vitest';
import { collectionTargets, watchPath } from './collection.js';

describe('kubernetes source configuration', () => {
  it('watches Services and each custom resource in every namespace named, or cluster-wide', () => {
    const resource = { group: 'toolyard.dev', version: 'v1alpha1', plural: 'mcpservers' };
    expect(collectionTargets(['a', 'b', 'a'], [resource]).map(watchPath)).toEqual([
      '/api/v1/namespaces/a/services',
      '/apis/toolyard.dev/v1alpha1/namespaces/a/mcpservers',
      '/api/v1/namespaces/b/services',
      '/apis/toolyard.dev/v1alpha1/namespaces/b/mcpservers',
    ]);
    expect(collectionTargets([], [resource]).map(watchPath)).toEqual(['/api/v1/services', '/apis/toolyard.dev/v1alpha1/mcpservers']);
  });
});
