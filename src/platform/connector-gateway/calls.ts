import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { Ids } from '../../core/ids.js';
import { toolEnabled, type Connections } from '../connections/lookup.js';
import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { ConnectorAiPolicy } from './ai-policy.js';
import { CredentialError, type UpstreamCredentials } from '../connector-credentials/credentials.js';
import type { ConnectorRow } from '../connectors/store.js';
import type { ToolCallUsage, ToolUsageRecorder } from '../tool-usage/recorder.js';
import { prefixKey, type ConnectorCatalog } from './catalog.js';
import { CALL_ID_META, RPC, type RpcOutcome } from './rpc.js';
import { policyConnector, policyTool, type ConnectorCaller, type UpstreamTools } from './tools.js';
import type { UpstreamPool, UpstreamTool } from './upstream.js';

/** The separator between a connector's tool prefix and the upstream name (MetaMCP's). */
export const SEPARATOR = '__';

export interface ToolCalls {
  /** One tools/call at the gateway's MCP endpoint (PLATFORM-API Part 4 §7 item 3). */
  call(caller: ConnectorCaller, gatewayId: string, params: unknown): Promise<RpcOutcome>;
}

export interface ToolCallsOptions {
  catalog: ConnectorCatalog;
  decisions: ConnectorDecisions;
  aiPolicy: ConnectorAiPolicy;
  connections: Connections;
  credentials: UpstreamCredentials;
  tools: UpstreamTools;
  upstreams: UpstreamPool;
  recorder: ToolUsageRecorder;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  environment: string;
  callTimeoutMs?: number;
}

type Verdict = Pick<ToolCallUsage, 'decision' | 'outcome' | 'billable' | 'billable_reason'>;

const DENIED_BY_POLICY: Verdict = { decision: 'denied', outcome: 'error', billable: false, billable_reason: 'denied_by_policy' };
const DISABLED_BY_USER: Verdict = { decision: 'denied', outcome: 'error', billable: false, billable_reason: 'disabled_by_user' };
const GATEWAY_ERROR: Verdict = { decision: 'allowed', outcome: 'error', billable: false, billable_reason: 'gateway_error' };
const UPSTREAM_ERROR: Verdict = { decision: 'allowed', outcome: 'error', billable: false, billable_reason: 'upstream_error' };
const DELIVERED: Verdict = { decision: 'allowed', outcome: 'ok', billable: true, billable_reason: 'delivered' };

/** The SDK prefixes an McpError's message with "MCP error <code>: "; the upstream's own words are passed on. */
const upstreamMessage = (error: McpError): string => error.message.replace(/^MCP error -?\d+: /, '');

export function createToolCalls(options: ToolCallsOptions): ToolCalls {
  const { catalog, decisions, aiPolicy, connections, credentials, tools, upstreams, recorder, clock, ids, logger, environment } = options;
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;

  /** The tool's hints for `call_tool`: the caller's listing when there is one; absent hints take the MCP defaults. */
  const hintsOf = async (caller: ConnectorCaller, connector: ConnectorRow, name: string): Promise<UpstreamTool> => {
    try {
      return (await tools.list(caller, connector)).find((tool) => tool.name === name) ?? { name };
    } catch (error) {
      logger.info({ connector: connector.id, err: error }, 'cannot list tools for the hints of a call; deciding with the MCP defaults');
      return { name };
    }
  };

  /** Every outcome past the prefix is recorded; the answer waits for the record's commit. */
  const settle = async (usage: ToolCallUsage, outcome: RpcOutcome): Promise<RpcOutcome> => {
    try {
      await recorder.record(usage);
    } catch (error) {
      logger.error({ err: error, callId: usage.call_id }, 'cannot record a tool call');
      return { error: { code: RPC.internalError, message: `the gateway could not record this tool call (call id ${usage.call_id}); its answer is withheld` } };
    }
    return outcome;
  };

  return {
    async call(caller, gatewayId, params) {
      const name = (params as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string' || name === '') return { error: { code: RPC.invalidParams, message: 'params.name: required, the tool name as tools/list gives it (<prefix>__<tool>)' } };
      const cut = name.indexOf(SEPARATOR);
      const connector = cut <= 0 ? undefined : (await catalog.current()).byPrefix.get(prefixKey(gatewayId, name.slice(0, cut)));
      if (!connector) return { error: { code: RPC.invalidParams, message: `params.name: no tool "${name}" on this gateway: names are <connector tool prefix>${SEPARATOR}<tool>, as tools/list gives them` } };
      const toolName = name.slice(cut + SEPARATOR.length);
      const callId = ids.uuid();
      const { user } = caller;
      // members in JCS order (the record is hashed as it is built; see jcs)
      const record = (verdict: Verdict): ToolCallUsage => ({
        billable: verdict.billable,
        billable_reason: verdict.billable_reason,
        call_id: callId,
        category: verdict.decision,
        connector_id: connector.id,
        connector_name: connector.name,
        decision: verdict.decision,
        definition_version: connector.updated_at.toISOString(),
        environment,
        gateway_id: gatewayId,
        groups: user.groups,
        occurred_at: clock.now().toISOString(),
        outcome: verdict.outcome,
        tool_name: toolName,
        user_email: user.email,
        user_id: user.userId,
      });
      const refuse = (verdict: Verdict, code: number, message: string) => settle(record(verdict), { error: { code, message: `${message} (call id ${callId})` } });
      const named = `connector "${connector.name}"`;

      if (!aiPolicy.allows(user, connector.name)) return refuse(DENIED_BY_POLICY, RPC.denied, aiPolicy.refusal(user, connector.name));
      const [visible, connection] = await Promise.all([decisions.canUse(user.userId, policyConnector(connector)), connections.find(user.userId, connector.id)]);
      if (!visible) return refuse(DENIED_BY_POLICY, RPC.denied, `denied: ${named} is not visible to you (the connector policy does not allow use_connector)`);
      if (connection && !connection.enabled) return refuse(DISABLED_BY_USER, RPC.denied, `denied: you disabled ${named}`);
      if (!toolEnabled(connection, toolName)) return refuse(DISABLED_BY_USER, RPC.denied, `denied: the tool "${toolName}" is narrowed out of your connection to ${named}`);
      const problem = await credentials.servingProblem(connector, caller.credential);
      if (problem !== undefined) return refuse(GATEWAY_ERROR, RPC.serverError, `${named} cannot be served to you: ${problem}`);
      // the hints come from the caller's listing, looked up (and listed upstream when not known) only for a policy that reads them
      const allowed = await decisions.mayCallTool(user.userId, policyConnector(connector), toolName, async () => policyTool(await hintsOf(caller, connector, toolName)));
      if (!allowed) return refuse(DENIED_BY_POLICY, RPC.denied, `denied: the connector policy does not allow you call_tool on "${toolName}" of ${named}`);

      let headers: Record<string, string>;
      try {
        headers = await credentials.headersFor(connector, caller.credential);
      } catch (error) {
        if (!(error instanceof CredentialError)) throw error;
        return refuse(GATEWAY_ERROR, RPC.serverError, `${named}: cannot obtain the upstream credential: ${error.message}`);
      }
      const upstreamParams = { ...(params as Record<string, unknown>), name: toolName };
      try {
        const result = await upstreams.callTool(connector, headers, upstreamParams);
        const meta = typeof result._meta === 'object' && result._meta !== null ? (result._meta as Record<string, unknown>) : {};
        const answer = { ...result, _meta: { ...meta, [CALL_ID_META]: callId } };
        return await settle(record(result.isError === true ? UPSTREAM_ERROR : DELIVERED), { result: answer });
      } catch (error) {
        if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
          return refuse(UPSTREAM_ERROR, RPC.serverError, `${named} did not answer tools/call within ${String(callTimeoutMs / 1000)} s`);
        }
        if (error instanceof McpError) {
          return settle(record(UPSTREAM_ERROR), { error: { code: error.code, message: upstreamMessage(error), ...(error.data !== undefined && { data: error.data }) } });
        }
        return refuse(UPSTREAM_ERROR, RPC.serverError, `${named}: tools/call at its server failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}
