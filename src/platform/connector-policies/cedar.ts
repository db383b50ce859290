import * as cedar from '@cedar-policy/cedar-wasm/nodejs';

/** The Cedar schema every connector policy is validated against (PLATFORM-API Part 4 §5 item 1). */
export const POLICY_SCHEMA = `namespace Toolyard {
  entity Group in [Group] = { name: String };
  entity User in [Group] = { user_name: String, email: String };
  entity Connector = { name: String, gateway_id: String };
  entity Tool in [Connector] = { name: String, read_only_hint: Bool, destructive_hint: Bool };
  type Ctx = { gateway_id: String, environment: String };
  action use_connector appliesTo { principal: User, resource: Connector, context: Ctx };
  action call_tool in [use_connector] appliesTo { principal: User, resource: Tool, context: Ctx };
}`;

/** The largest document a policy takes, in UTF-8 bytes (413 above). */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

/** The structured policy's text: one statement per granted group, in the order given (by name, then id). */
export function structuredDocument(connectorId: string, groupIds: readonly string[]): string {
  return groupIds
    .map(
      (groupId) =>
        `@id("group:${groupId}") permit (principal in Toolyard::Group::"${groupId}", action in Toolyard::Action::"use_connector", resource in Toolyard::Connector::"${connectorId}");`,
    )
    .join('\n');
}

/** Why a document cannot be a policy: parse and strict validation messages, or templates (none when it can). */
export function documentProblems(document: string): string[] {
  const parts = cedar.policySetTextToParts(document);
  if (parts.type === 'failure') return parts.errors.map((error) => error.message);
  // a template needs links the API cannot make, so it would never apply
  if (parts.policy_templates.length > 0) return [`templates (policies with ?principal or ?resource slots) are not allowed; found ${String(parts.policy_templates.length)}`];
  const answer = cedar.validate({ schema: POLICY_SCHEMA, policies: { staticPolicies: document }, validationSettings: { mode: 'strict' } });
  if (answer.type === 'failure') return answer.errors.map((error) => error.message);
  return answer.validationErrors.map((error) => error.error.message);
}

export interface CedarEntity {
  uid: { type: string; id: string };
  attrs: Record<string, string | boolean>;
  parents: { type: string; id: string }[];
}

export interface CedarRequest {
  principal: string;
  action: 'use_connector' | 'call_tool';
  resource: { type: 'Toolyard::Connector' | 'Toolyard::Tool'; id: string };
  context: { gateway_id: string; environment: string };
  entities: CedarEntity[];
}

const SCHEMA_NAME = 'toolyard-connector-policies';

/**
 * Document-mode policies, parsed once into the Cedar engine's own store under their connector's id and
 * re-parsed only when the text changes; the schema (which holds the action hierarchy: call_tool in
 * use_connector) is parsed once per process.
 */
export function createCedarEngine(): { allows(connectorId: string, document: string, request: CedarRequest): boolean } {
  const loaded = new Map<string, string>();
  let schemaLoaded = false;
  const load = (connectorId: string, document: string) => {
    if (!schemaLoaded) {
      const schema = cedar.preparseSchema(SCHEMA_NAME, POLICY_SCHEMA);
      if (schema.type === 'failure') throw new Error(`the connector policy schema does not parse: ${schema.errors.map((error) => error.message).join('; ')}`);
      schemaLoaded = true;
    }
    if (loaded.get(connectorId) === document) return;
    const parsed = cedar.preparsePolicySet(connectorId, { staticPolicies: document });
    if (parsed.type === 'failure') throw new Error(`the policy of connector ${connectorId} does not parse: ${parsed.errors.map((error) => error.message).join('; ')}`);
    loaded.set(connectorId, document);
  };
  return {
    allows(connectorId, document, request) {
      load(connectorId, document);
      const answer = cedar.statefulIsAuthorized({
        principal: { type: 'Toolyard::User', id: request.principal },
        action: { type: 'Toolyard::Action', id: request.action },
        resource: request.resource,
        context: request.context,
        preparsedPolicySetId: connectorId,
        preparsedSchemaName: SCHEMA_NAME,
        validateRequest: true,
        entities: request.entities,
      });
      // an evaluation that fails is no permit: default deny
      return answer.type === 'success' && answer.response.decision === 'allow';
    },
  };
}
