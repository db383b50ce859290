import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { createCedarEngine, type CedarEntity, type CedarRequest } from './cedar.js';
import { createDirectoryGraph, type GraphGroup, type GraphUser } from './directory-graph.js';
import { readDecisionPolicy } from './store.js';

/** A connector as the policy sees it (the Cedar entity `Toolyard::Connector`). */
export interface PolicyConnector {
  id: string;
  name: string;
  gateway_id: string;
}

/** An upstream tool as the policy sees it (`Toolyard::Tool`); absent hints take the MCP defaults. */
export interface PolicyTool {
  name: string;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
}

/**
 * The connector policies' answers for the connector gateway and the "visible to me" routes (PLATFORM-API
 * Part 4 §5): the caller is a directory user, whose groups (direct and inherited) the decisions look up.
 * The context's `environment` is the serving process's `connectorGateway.environment`.
 */
export interface ConnectorDecisions {
  /** `use_connector`: is the connector visible to this user? */
  canUse(userId: string, connector: PolicyConnector): Promise<boolean>;
  /** `call_tool` for each tool: the names of the tools this user may call. */
  allowedTools(userId: string, connector: PolicyConnector, tools: PolicyTool[]): Promise<Set<string>>;
  /** `call_tool` for one tool, whose hints are asked for only when the policy reads them (a document; structured statements grant every tool). */
  mayCallTool(userId: string, connector: PolicyConnector, toolName: string, hints: () => Promise<PolicyTool>): Promise<boolean>;
}

export interface ConnectorDecisionsOptions {
  db: Kysely<PlatformDatabase>;
  changes: ChangeFeed;
  /** `connectorGateway.environment`, the context's `environment`. */
  environment: string;
}

/** The decisions with a way to forget this replica's policies at once after its own write. */
export interface ConnectorDecisionsMemory extends ConnectorDecisions {
  forgetPolicies(): void;
}

/** A directory user and its groups, direct and inherited. */
interface Subject {
  user: GraphUser;
  groups: GraphGroup[];
}

type Compiled = { mode: 'structured'; groupIds: ReadonlySet<string> } | { mode: 'document'; document: string };

/** Past this many remembered Cedar answers the memory starts over. */
const MAX_ANSWERS = 100_000;

/**
 * Decisions from memory: each connector's policy (loaded when first asked about) and the directory graph,
 * both forgotten when the change feed says they changed on any replica. A structured policy is decided by
 * membership, which is what its statements say; a document goes through Cedar, with the user in its
 * direct groups and each group in its parents.
 */
export function createConnectorDecisions(options: ConnectorDecisionsOptions): ConnectorDecisionsMemory {
  const { db, changes, environment } = options;
  const graph = createDirectoryGraph(db);
  const engine = createCedarEngine();
  const policies = new Map<string, Promise<Compiled>>();
  // Cedar's answers for document policies, by everything a request is made of; an answer whose inputs were
  // read before a change (the generation moved meanwhile) is not remembered
  const answers = new Map<string, boolean>();
  let generation = 0;
  const forgetAnswers = () => {
    generation += 1;
    answers.clear();
  };

  const forgetPolicies = () => {
    policies.clear();
    forgetAnswers();
  };
  changes.subscribe(TOPICS.connectorPolicies, forgetPolicies);
  changes.subscribe(TOPICS.users, () => {
    graph.forget('users');
    forgetAnswers();
  });
  changes.subscribe(TOPICS.groups, () => {
    graph.forget('all');
    // a deleted group leaves the policies that granted it
    forgetPolicies();
  });

  /** Cedar's answer, remembered while nothing it was made of changed. */
  const cedarAllows = (since: number, key: string, document: string, request: CedarRequest & { connectorId: string }): boolean => {
    const known = answers.get(key);
    if (known !== undefined) return known;
    const allowed = engine.allows(request.connectorId, document, request);
    if (since === generation) {
      if (answers.size >= MAX_ANSWERS) answers.clear();
      answers.set(key, allowed);
    }
    return allowed;
  };

  const policyOf = (connectorId: string): Promise<Compiled> => {
    const known = policies.get(connectorId);
    if (known) return known;
    const loading = readDecisionPolicy(db, connectorId).then(
      (read): Compiled => (read.mode === 'structured' ? { mode: 'structured', groupIds: new Set(read.groupIds) } : { mode: 'document', document: read.document }),
    );
    loading.catch(() => {
      if (policies.get(connectorId) === loading) policies.delete(connectorId);
    });
    policies.set(connectorId, loading);
    return loading;
  };

  /** The user and its groups (direct and inherited); undefined for a user not in the directory. */
  const subjectOf = async (userId: string): Promise<Subject | undefined> => {
    const user = await graph.user(userId);
    return user && { user, groups: await graph.groupsAbove(user) };
  };

  /** The user, its groups and the connector as Cedar entities: only a document policy reads them. */
  const entitiesOf = ({ user, groups }: Subject, connector: PolicyConnector): CedarEntity[] => {
    const group = (id: string) => ({ type: 'Toolyard::Group', id });
    return [
      { uid: { type: 'Toolyard::User', id: user.id }, attrs: { user_name: user.user_name, email: user.email }, parents: user.groupIds.map(group) },
      ...groups.map((entry) => ({ uid: group(entry.id), attrs: { name: entry.name }, parents: entry.parentIds.map(group) })),
      { uid: { type: 'Toolyard::Connector', id: connector.id }, attrs: { name: connector.name, gateway_id: connector.gateway_id }, parents: [] },
    ];
  };

  const granted = (policy: { groupIds: ReadonlySet<string> }, groups: GraphGroup[]) => groups.some((group) => policy.groupIds.has(group.id));
  const contextOf = (connector: PolicyConnector) => ({ gateway_id: connector.gateway_id, environment });

  /** `call_tool` for each tool under a Cedar document: the names it allows. */
  const documentAllows = (since: number, document: string, userId: string, subject: Subject, connector: PolicyConnector, tools: PolicyTool[]): Set<string> => {
    const entities = entitiesOf(subject, connector);
    const allowed = new Set<string>();
    for (const tool of tools) {
      const hints = { read_only_hint: tool.readOnlyHint ?? false, destructive_hint: tool.destructiveHint ?? true };
      const entity: CedarEntity = { uid: { type: 'Toolyard::Tool', id: tool.name }, attrs: { name: tool.name, ...hints }, parents: [{ type: 'Toolyard::Connector', id: connector.id }] };
      const key = JSON.stringify(['call_tool', userId, connector.id, connector.name, connector.gateway_id, tool.name, hints.read_only_hint, hints.destructive_hint]);
      const request = { connectorId: connector.id, principal: userId, action: 'call_tool' as const, resource: { type: 'Toolyard::Tool' as const, id: tool.name }, context: contextOf(connector), entities: [...entities, entity] };
      if (cedarAllows(since, key, document, request)) allowed.add(tool.name);
    }
    return allowed;
  };

  return {
    forgetPolicies,

    async canUse(userId, connector) {
      const since = generation;
      const [policy, subject] = await Promise.all([policyOf(connector.id), subjectOf(userId)]);
      if (!subject) return false;
      if (policy.mode === 'structured') return granted(policy, subject.groups);
      const key = JSON.stringify(['use_connector', userId, connector.id, connector.name, connector.gateway_id]);
      return cedarAllows(since, key, policy.document, {
        connectorId: connector.id,
        principal: userId,
        action: 'use_connector',
        resource: { type: 'Toolyard::Connector', id: connector.id },
        context: contextOf(connector),
        entities: entitiesOf(subject, connector),
      });
    },

    async allowedTools(userId, connector, tools) {
      const since = generation;
      const [policy, subject] = await Promise.all([policyOf(connector.id), subjectOf(userId)]);
      if (!subject) return new Set();
      // structured statements permit use_connector on the connector, and call_tool is in use_connector
      if (policy.mode === 'structured') return new Set(granted(policy, subject.groups) ? tools.map((tool) => tool.name) : []);
      return documentAllows(since, policy.document, userId, subject, connector, tools);
    },

    async mayCallTool(userId, connector, toolName, hints) {
      const since = generation;
      const [policy, subject] = await Promise.all([policyOf(connector.id), subjectOf(userId)]);
      if (!subject) return false;
      if (policy.mode === 'structured') return granted(policy, subject.groups);
      return documentAllows(since, policy.document, userId, subject, connector, [await hints()]).has(toolName);
    },
  };
}
