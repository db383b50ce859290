import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../core/kubernetes/objects.js';
import { exportedEntry } from './objects.js';

const service = (annotations: Record<string, string>, ports: { port?: number }[] = [{ port: 80 }]): KubeObject => ({
  metadata: { name: 'svc', namespace: 'ns', annotations },
  spec: { ports },
});
const base = { 'toolyard.dev/registry-export': 'true', 'toolyard.dev/registry-name': 'io.example/svc' };

describe('kubernetes object export', () => {
  it('ignores objects that do not opt in', () => {
    expect(exportedEntry(service({}), true)).toEqual({ kind: 'ignored' });
    expect(exportedEntry(service({ ...base, 'toolyard.dev/registry-export': 'True' }), true)).toEqual({ kind: 'ignored' });
  });

  it('builds a server.json with the in-cluster default remote', () => {
    const outcome = exportedEntry(service(base), true);
    expect(outcome.kind).toBe('entry');
    if (outcome.kind !== 'entry') return;
    expect(outcome.record).toMatchObject({ entryType: 'server', name: 'io.example/svc', version: '1.0.0', claims: {} });
    expect(JSON.parse(outcome.record.body)).toEqual({
      name: 'io.example/svc',
      description: '',
      version: '1.0.0',
      remotes: [{ type: 'streamable-http', url: 'http://svc.ns.svc.cluster.local:80/mcp' }],
    });
  });

  it.each([
    [{ ...base, 'toolyard.dev/registry-transport': 'stdio' }, /transport must be streamable-http or sse/, true],
    [{ ...base, 'toolyard.dev/authz-claims': '[1]' }, /must be a JSON object/, true],
    [{ ...base, 'toolyard.dev/registry-name': 'no-slash' }, /name: "no-slash"/, false],
  ])('skips %j', (annotations, reason, error) => {
    const outcome = exportedEntry(service(annotations), true);
    expect(outcome).toMatchObject({ kind: 'skipped', error });
    if (outcome.kind === 'skipped') expect(outcome.reason).toMatch(reason);
  });

  it('skips a Service without ports unless a URL is given', () => {
    expect(exportedEntry(service(base, []), true)).toMatchObject({ kind: 'skipped', error: true });
    expect(exportedEntry(service({ ...base, 'toolyard.dev/registry-url': 'http://x/mcp' }, []), true).kind).toBe('entry');
  });
});
