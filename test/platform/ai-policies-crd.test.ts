import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { plural: string; singular: string; kind: string; listKind: string; shortNames: string[] };
    versions: { name: string; served: boolean; storage: boolean; subresources: Record<string, unknown>; schema: { openAPIV3Schema: Record<string, unknown> } }[];
  };
}

const documents = (path: string) => parseAllDocuments(readFileSync(`${ROOT}${path}`, 'utf8')).map((document) => document.toJS() as Record<string, unknown>).filter(Boolean);
const crd = documents('deploy/crds/toolyard.dev_aipolicies.yaml')[0] as unknown as Crd;
const version = crd.spec.versions[0];
const schema = version?.schema.openAPIV3Schema ?? {};
// the x-kubernetes-* keywords are the API server's; a JSON Schema validator checks the rest
const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);

const policy = (spec: Record<string, unknown>) => ({ apiVersion: 'toolyard.dev/v1alpha1', kind: 'AIPolicy', metadata: { name: 'p' }, spec });
const valid = { gatewayRef: { name: 'toolyard' }, principalMatchers: [{ claims: { groups: 'engineering' } }] };

describe('the AIPolicy CRD (deploy/crds)', () => {
  it('names toolyard.dev/v1alpha1 AIPolicy, namespaced, with the status subresource', () => {
    expect(crd.metadata.name).toBe('aipolicies.toolyard.dev');
    expect(crd.spec.group).toBe('toolyard.dev');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toEqual({ plural: 'aipolicies', singular: 'aipolicy', kind: 'AIPolicy', listKind: 'AIPolicyList', shortNames: ['aip'] });
    expect(crd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
  });

  it('accepts a policy the API accepts, and refuses the field rules the contract names', () => {
    expect(validate(policy({ ...valid, description: 'd', mcpPolicy: { servers: ['github', '*'] } })), JSON.stringify(validate.errors)).toBe(true);
    const refused: [string, Record<string, unknown>][] = [
      ['no gateway', { principalMatchers: valid.principalMatchers }],
      ['a gateway that is no DNS-1123 subdomain', { ...valid, gatewayRef: { name: 'Not_Valid' } }],
      ['a long description', { ...valid, description: 'd'.repeat(1025) }],
      ['no matchers', { ...valid, principalMatchers: [] }],
      ['65 matchers', { ...valid, principalMatchers: Array.from({ length: 65 }, () => ({ claims: { a: 'b' } })) }],
      ['empty claims', { ...valid, principalMatchers: [{ claims: {} }] }],
      ['a claim that is no string', { ...valid, principalMatchers: [{ claims: { level: 3 } }] }],
      ['an empty claim value', { ...valid, principalMatchers: [{ claims: { level: '' } }] }],
      ['an empty server', { ...valid, mcpPolicy: { servers: [''] } }],
      ['257 servers', { ...valid, mcpPolicy: { servers: Array.from({ length: 257 }, (_, index) => `s${String(index)}`) } }],
    ];
    for (const [what, spec] of refused) expect(validate(policy(spec)), what).toBe(false);
    expect(validate({ metadata: { name: 'p' } })).toBe(false);
  });

  it('keeps spec.gatewayRef immutable, server names unique and claim names short through the API server\'s own rules', () => {
    const spec = (schema.properties as Record<string, { properties: Record<string, Record<string, unknown>> }>).spec?.properties ?? {};
    expect(spec.gatewayRef?.['x-kubernetes-validations']).toEqual([{ rule: 'self == oldSelf', message: 'field is immutable' }]);
    expect((spec.mcpPolicy?.properties as Record<string, Record<string, unknown>>).servers?.['x-kubernetes-list-type']).toBe('set');
    const claims = ((spec.principalMatchers?.items as { properties: Record<string, Record<string, unknown>> }).properties.claims ?? {})['x-kubernetes-validations'];
    expect(claims).toEqual([expect.objectContaining({ rule: 'self.all(name, size(name) <= 256)' })]);
  });

  it('ships a Role granting what the platform does with AIPolicies, bound to its service account', () => {
    const [role, binding] = documents('deploy/platform/ai-policies-rbac.yaml') as [Record<string, unknown>, Record<string, unknown>];
    expect(role.kind).toBe('Role');
    expect(role.rules).toEqual([
      { apiGroups: ['toolyard.dev'], resources: ['aipolicies'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      { apiGroups: ['toolyard.dev'], resources: ['aipolicies/status'], verbs: ['patch'] },
    ]);
    expect(binding).toMatchObject({ kind: 'RoleBinding', roleRef: { kind: 'Role', name: (role.metadata as { name: string }).name }, subjects: [{ kind: 'ServiceAccount' }] });
  });
});
