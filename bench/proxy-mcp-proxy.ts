/**
 * The peer of bench/proxy.ts: the `mcp-proxy` CLI in front of a stdio server, streamable HTTP only,
 * otherwise with its defaults (resumability event store on, 2026-07-28 classification on), as its users
 * run it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../src/core/net/free-port.js';

export const MCP_PROXY_FLAGS = ['--server', 'stream'];

const STARTUP_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

export interface McpProxy {
  url: string;
  /** VmRSS of the mcp-proxy process (Linux), without its server; undefined elsewhere. */
  rssBytes: () => Promise<number | undefined>;
  stop: () => Promise<void>;
}


function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function processRss(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

function stopChild(child: ChildProcess): Promise<void> {
  if (!running(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startMcpProxy(root: string, server: { command: string; args: string[] }): Promise<McpProxy> {
  const port = await freePort();
  const child = spawn(join(root, 'node_modules/.bin/mcp-proxy'), ['--host', '127.0.0.1', '--port', String(port), ...MCP_PROXY_FLAGS, '--', server.command, ...server.args], {
    cwd: root,
    stdio: 'ignore',
  });
  const deadline = performance.now() + STARTUP_TIMEOUT_MS;
  // it logs "starting server" before it listens, so ready is when the port accepts connections
  while (!(await accepts(port))) {
    if (!running(child)) throw new Error(`mcp-proxy exited with ${child.exitCode ?? child.signalCode ?? '?'} before it listened`);
    if (performance.now() > deadline) {
      await stopChild(child);
      throw new Error('mcp-proxy did not listen in time');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${String(port)}/mcp`, rssBytes: () => processRss(child.pid), stop: () => stopChild(child) };
}
