import { describe, expect, it } from 'vitest';
import { platformConfig } from './helpers.js';

describe('the aiGateway configuration block', () => {
  it('defaults to the database backend, gateway toolyard in namespace default, 5 minute page tokens and 20/s burst 100', () => {
    const { aiGateway } = platformConfig();
    expect(aiGateway).toEqual({
      gateway: { name: 'toolyard', namespace: 'default' },
      backend: 'database',
      requirePolicy: false,
      pageTokenTtl: '5m',
      rateLimit: { requestsPerSecond: 20, burst: 100 },
    });
  });

  it('takes every key the contract shows', () => {
    const { aiGateway } = platformConfig({
      aiGateway: {
        gateway: { name: 'edge.example', namespace: 'ai' },
        backend: 'kubernetes',
        kubernetes: { kubeconfig: '/etc/toolyard/kubeconfig' },
        requirePolicy: true,
        pageTokenTtl: '90s',
        rateLimit: { requestsPerSecond: 0, burst: 0 },
      },
    });
    expect(aiGateway.gateway).toEqual({ name: 'edge.example', namespace: 'ai' });
    expect(aiGateway.backend).toBe('kubernetes');
    expect(aiGateway.kubernetes).toEqual({ kubeconfig: '/etc/toolyard/kubeconfig' });
    expect(aiGateway.requirePolicy).toBe(true);
    expect(aiGateway.rateLimit).toEqual({ requestsPerSecond: 0, burst: 0 });
  });

  it.each([
    [{ gateway: { name: 'Not_A_Name' } }, 'aiGateway.gateway.name'],
    [{ gateway: { namespace: 'a.b' } }, 'aiGateway.gateway.namespace'],
    [{ pageTokenTtl: 'soon' }, 'aiGateway.pageTokenTtl'],
    [{ rateLimit: { burst: -1 } }, 'aiGateway.rateLimit.burst'],
    [{ backend: 'etcd' }, 'aiGateway.backend'],
    [{ backend: 'kubernetes', kubernetes: { kubeconfig: '' } }, 'aiGateway.kubernetes.kubeconfig'],
    [{ extra: true }, 'aiGateway'],
  ])('stops the start naming the key of %j', (block, key) => {
    expect(() => platformConfig({ aiGateway: block })).toThrow(key);
  });
});
