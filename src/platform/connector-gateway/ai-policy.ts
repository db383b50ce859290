import { connectorAllowed, type AiDecision, type AiEnforcement } from '../ai-policies/enforcement.js';
import type { GatewayCaller } from '../identity/callers.js';

/** PLATFORM-API Part 5 rule 17: a connector the AI policies do not allow the caller is not visible at any connector gateway. */
export interface ConnectorAiPolicy {
  allows(caller: GatewayCaller, connectorName: string): boolean;
  /** Why a tools/call to a connector it does not allow is refused, naming the AI policies. */
  refusal(caller: GatewayCaller, connectorName: string): string;
}

export function createConnectorAiPolicy(options: { enforcement: AiEnforcement; gateway: string }): ConnectorAiPolicy {
  const { enforcement, gateway } = options;
  // one decision per request: a caller object lives for one request, and a listing asks for each connector
  const decisions = new WeakMap<GatewayCaller, AiDecision>();
  const decide = (caller: GatewayCaller): AiDecision => {
    let decision = decisions.get(caller);
    if (!decision) {
      decision = enforcement.decide(caller.claims);
      decisions.set(caller, decision);
    }
    return decision;
  };
  return {
    allows: (caller, connectorName) => connectorAllowed(decide(caller), connectorName),
    refusal(caller, connectorName) {
      const matched = decide(caller).matched.map((policy) => policy.name);
      const which = matched.length === 0 ? 'no AI policy matches you' : `the AI policies that match you (${matched.join(', ')}) do not list it in spec.mcpPolicy.servers`;
      return `denied by AI policy: the gateway ${gateway} does not allow you the connector "${connectorName}": ${which}`;
    },
  };
}
