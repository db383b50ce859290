import type { ProxyMode, RateLimitConfig, ToolsOverride } from '../workloads/schemas.js';
import type { StdioServerCommand } from './stdio-child.js';

/** What a workload proxy sits in front of. */
export type ProxyTarget =
  | { kind: 'stdio'; command: StdioServerCommand }
  | {
      kind: 'http';
      /** The upstream MCP endpoint, e.g. http://127.0.0.1:8931/mcp or https://mcp.example.com/sse. */
      url: string;
      transport: 'streamable-http' | 'sse';
      /** Added to every upstream request (static headers and headers resolved from secrets). */
      headers?: Record<string, string>;
    };

/** The per-workload middleware settings, already parsed (durations in ms). */
export interface ProxyPolicy {
  /** Allow-list of tool names after overrides; empty means every tool. */
  toolsFilter: readonly string[];
  /** Original tool name → new name and/or description. */
  toolsOverride: ToolsOverride;
  rateLimit: RateLimitConfig | null;
  /** Largest accepted request body in bytes (413 above). */
  maxBodyBytes: number;
  /** How long to wait for the upstream answer to one request before answering with an error. */
  readTimeoutMs: number;
  /** An idle client session is ended after this long. */
  sessionTtlMs: number;
}

export interface WorkloadProxyOptions {
  target: ProxyTarget;
  /** How clients reach a stdio server: streamable HTTP at /mcp or SSE at /sse + /messages. */
  mode: ProxyMode;
  policy: ProxyPolicy;
  /** One line of the proxy's own log (proxy-logs); never carries secrets or message bodies. */
  log: (line: string) => void;
  /** The stdio server's stderr (and non-JSON stdout lines), for the workload's logs. */
  onServerOutput?: (chunk: string) => void;
  /** The stdio server exited; the supervisor decides whether to call restartServer. */
  onServerExit?: (reason: string) => void;
}

export interface WorkloadProxy {
  listen: (port: number, host: string) => Promise<{ port: number; url: string }>;
  /**
   * stdio only: starts a fresh server process. Client sessions survive; the upstream is
   * initialized again with the first client's initialize request before any other message.
   */
  restartServer: () => void;
  /** The stdio server's pid while it runs. */
  readonly serverPid: number | undefined;
  close: () => Promise<void>;
}
