import { describe, expect, it } from 'vitest';
import { createCedarEngine, documentProblems, structuredDocument, type CedarEntity } from './cedar.js';

const CONNECTOR = '11111111-1111-4111-8111-111111111111';
const GROUP = '22222222-2222-4222-8222-222222222222';
const USER = '33333333-3333-4333-8333-333333333333';

describe('connector policy text', () => {
  it('writes one statement per group in the given order, and nothing for no group', () => {
    expect(structuredDocument(CONNECTOR, [])).toBe('');
    expect(structuredDocument(CONNECTOR, [GROUP, CONNECTOR]).split('\n')).toEqual([
      `@id("group:${GROUP}") permit (principal in Toolyard::Group::"${GROUP}", action in Toolyard::Action::"use_connector", resource in Toolyard::Connector::"${CONNECTOR}");`,
      `@id("group:${CONNECTOR}") permit (principal in Toolyard::Group::"${CONNECTOR}", action in Toolyard::Action::"use_connector", resource in Toolyard::Connector::"${CONNECTOR}");`,
    ]);
  });

  it('accepts the structured text, an empty document and one using every attribute of the schema', () => {
    expect(documentProblems(structuredDocument(CONNECTOR, [GROUP]))).toEqual([]);
    expect(documentProblems('')).toEqual([]);
    expect(
      documentProblems(`permit (principal, action == Toolyard::Action::"call_tool", resource)
        when { resource.read_only_hint && !resource.destructive_hint && resource.name like "get_*" && principal.email like "*@example.com"
               && context.environment == "production" && context.gateway_id == "default" };`),
    ).toEqual([]);
  });

  it("gives the validator's messages for an unknown attribute, a wrong type, a parse error and a template", () => {
    expect(documentProblems('permit (principal, action, resource) when { principal.department == "x" };').join('; ')).toMatch(/attribute `department`/);
    expect(documentProblems('permit (principal, action, resource) when { context.environment == 1 };').length).toBeGreaterThan(0);
    expect(documentProblems('permit (principal, action, resource)')[0]).toMatch(/unexpected end of input/);
    expect(documentProblems('permit (principal == ?principal, action, resource);')[0]).toMatch(/templates/);
  });
});

describe('Cedar engine', () => {
  const entities = (destructive: boolean): CedarEntity[] => [
    { uid: { type: 'Toolyard::User', id: USER }, attrs: { user_name: 'alice', email: '' }, parents: [{ type: 'Toolyard::Group', id: GROUP }] },
    { uid: { type: 'Toolyard::Group', id: GROUP }, attrs: { name: 'team' }, parents: [] },
    { uid: { type: 'Toolyard::Connector', id: CONNECTOR }, attrs: { name: 'c', gateway_id: 'default' }, parents: [] },
    { uid: { type: 'Toolyard::Tool', id: 'rm' }, attrs: { name: 'rm', read_only_hint: false, destructive_hint: destructive }, parents: [{ type: 'Toolyard::Connector', id: CONNECTOR }] },
  ];
  const callTool = (destructive: boolean) => ({
    principal: USER,
    action: 'call_tool' as const,
    resource: { type: 'Toolyard::Tool' as const, id: 'rm' },
    context: { gateway_id: 'default', environment: 'production' },
    entities: entities(destructive),
  });

  it('lets a use_connector permit cover call_tool, lets forbid win, and takes a changed document', () => {
    const engine = createCedarEngine();
    const permit = structuredDocument(CONNECTOR, [GROUP]);
    expect(engine.allows(CONNECTOR, permit, callTool(true))).toBe(true);
    const forbid = `${permit}\nforbid (principal, action, resource is Toolyard::Tool) when { resource.destructive_hint };`;
    expect(engine.allows(CONNECTOR, forbid, callTool(true))).toBe(false);
    expect(engine.allows(CONNECTOR, forbid, callTool(false))).toBe(true);
    expect(engine.allows(CONNECTOR, '', callTool(false))).toBe(false);
  });
});
