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
}
