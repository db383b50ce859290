import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createForward, type FrontEndContext } from './front-end.js';
import { closeServer, listenOn, rebindingGuard, sendJson } from './http-io.js';
import { createMcpMiddleware } from './middleware.js';
import { SessionRouter } from './session-router.js';
import { createSseFront } from './sse-front.js';
import { StdioChild, type StdioServerCommand } from './stdio-child.js';
import { createStreamableHttpFront } from './streamable-http-front.js';
import type { WorkloadProxy, WorkloadProxyOptions } from './types.js';

export type StdioProxyOptions = WorkloadProxyOptions & {
  target: { kind: 'stdio'; command: StdioServerCommand };
  newSessionId?: () => string;
  clock?: () => number;
};

/** How often read timeouts and idle sessions are checked: a tenth of the shorter one, within [10 ms, 1 s]. */
function sweepInterval(readTimeoutMs: number, sessionTtlMs: number): number {
  return Math.min(1000, Math.max(10, Math.floor(Math.min(readTimeoutMs, sessionTtlMs) / 10)));
}

/**
 * Runs one stdio MCP server and serves it to any number of client sessions over Streamable HTTP
 * (/mcp) or HTTP+SSE (/sse), plus /health, applying the workload's middleware policy.
 */
export function createStdioProxy(options: StdioProxyOptions): WorkloadProxy {
  const { policy, log } = options;
  const clock = options.clock ?? Date.now;
  // Assigned right below; the router's send and the exit handler only run once it is.
  let child: StdioChild;
  let closed = false;
  const router = new SessionRouter({
    send: (message) => child.send(message),
    readTimeoutMs: policy.readTimeoutMs,
    sessionTtlMs: policy.sessionTtlMs,
    clock,
  });
  const context: FrontEndContext = {
    router,
    maxBodyBytes: policy.maxBodyBytes,
    newSessionId: options.newSessionId ?? randomUUID,
    forward: createForward(router, createMcpMiddleware(policy, clock)),
  };
  const front = options.mode === 'sse' ? createSseFront(context) : createStreamableHttpFront(context);

  const start = (): StdioChild => {
    const started: StdioChild = new StdioChild(options.target.command, {
      onMessage: (message) => router.serverMessage(message),
      onExit: (reason) => {
        // A replaced process exiting late must not take its successor down with it, and a stop
        // asked for by close() is no crash for the supervisor to act on.
        if (child !== started || closed) return;
        router.serverDown(reason);
        log(`MCP server exited: ${reason}`);
        options.onServerExit?.(reason);
      },
      ...(options.onServerOutput === undefined ? {} : { onStderr: options.onServerOutput }),
    });
    return started;
  };
  child = start();

  const sweeper = setInterval(() => router.sweep(), sweepInterval(policy.readTimeoutMs, policy.sessionTtlMs));
  sweeper.unref();

  let refusesRebinding = rebindingGuard('127.0.0.1');
  const http = createServer((req, res) => {
    if (refusesRebinding(req, res)) return;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (front.handle(req, res, path)) return;
    if (path === '/health' && req.method === 'GET') {
      const down = router.downReason;
      sendJson(res, down === undefined ? 200 : 503, { status: down === undefined ? 'ok' : 'down', sessions: router.sessionCount });
      return;
    }
    sendJson(res, 404, { error: 'not found' });
  });

  return {
    get serverPid() {
      return child.exited ? undefined : child.pid;
    },
    listen: (port, host) => {
      refusesRebinding = rebindingGuard(host);
      return listenOn(http, port, host, front.path);
    },
    restartServer: () => {
      if (closed) return;
      const old = child;
      child = start();
      router.serverRestarted();
      if (!old.exited) void old.stop();
      log('MCP server restarted');
    },
    close: async () => {
      closed = true;
      clearInterval(sweeper);
      await closeServer(http);
      await child.stop();
    },
  };
}
