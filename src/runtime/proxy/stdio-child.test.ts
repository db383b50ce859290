import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from './jsonrpc.js';
import { StdioChild } from './stdio-child.js';

/** Runs a script as the "server" and collects what StdioChild parses from its stdout. */
function collect(script: string): Promise<{ messages: JsonRpcMessage[]; other: string }> {
  return new Promise((resolve) => {
    const messages: JsonRpcMessage[] = [];
    let other = '';
    new StdioChild(
      { command: process.execPath, args: ['-e', script], env: {} },
      { onMessage: (message) => messages.push(message), onStderr: (chunk) => (other += chunk), onExit: () => resolve({ messages, other }) },
    );
  });
}

describe('StdioChild framing', () => {
  it('reassembles a large message written in many pieces, and splits several messages in one write', async () => {
    const script = `
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(3 * 1024 * 1024) } });
      const parts = [];
      for (let i = 0; i < big.length; i += 10000) parts.push(big.slice(i, i + 10000));
      (async () => {
        for (const part of parts) await new Promise((r) => process.stdout.write(part, r));
        process.stdout.write('\\n{"jsonrpc":"2.0","id":2,"result":{}}\\nbanner line\\n{"jsonrpc":"2.0","method":"notifications/x"}\\n');
      })();
    `;
    const { messages, other } = await collect(script);
    expect(messages.map((m) => m.id ?? m.method)).toEqual([1, 2, 'notifications/x']);
    expect((messages[0]?.result as { text: string }).text).toHaveLength(3 * 1024 * 1024);
    expect(other).toBe('banner line\n');
  });
});

describe('StdioChild sending', () => {
  it('delivers messages sent in one turn in order, and those sent right before stop() before stdin closes', async () => {
    // The server answers every line with its id, then reports end of input. It says when it is ready,
    // because a SIGTERM that reached it before its handler was set would end it before it read anything.
    const script = `
      process.on('SIGTERM', () => undefined);
      process.stdout.write('{"jsonrpc":"2.0","method":"ready"}\\n');
      let rest = '';
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (chunk) => {
        const lines = (rest + chunk).split('\\n');
        rest = lines.pop();
        for (const line of lines) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(line).id, result: {} }) + '\\n');
      });
      process.stdin.on('end', () => process.stdout.write('{"jsonrpc":"2.0","method":"end"}\\n'));
    `;
    const received: (string | number | null | undefined)[] = [];
    let answered: () => void = () => undefined;
    let ready: () => void = () => undefined;
    const allAnswered = new Promise<void>((resolve) => (answered = resolve));
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const child = new StdioChild(
      { command: process.execPath, args: ['-e', script], env: {} },
      {
        onMessage: (message) => {
          if (message.method === 'ready') {
            ready();
            return;
          }
          received.push(message.id ?? message.method);
          if (received.length === 10) answered();
        },
        onExit: () => undefined,
      },
    );
    await isReady;
    for (let id = 1; id <= 5; id++) child.send({ jsonrpc: '2.0', id, method: 'ping' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let id = 6; id <= 9; id++) child.send({ jsonrpc: '2.0', id, method: 'ping' });
    const stopped = child.stop(5000);
    await allAnswered;
    expect(received).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 'end']);
    await stopped;
  });
});

describe('StdioChild stopping', () => {
  /** Starts a script as the server and stops it at once; what it said and how it ended. */
  async function stopped(script: string, graceMs: number): Promise<{ messages: JsonRpcMessage[]; reason: string }> {
    const messages: JsonRpcMessage[] = [];
    let reason = '';
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const child = new StdioChild(
      { command: process.execPath, args: ['-e', script], env: {} },
      {
        onMessage: (message) => (message.method === 'ready' ? ready() : messages.push(message)),
        onExit: (why) => (reason = why),
      },
    );
    await isReady;
    await child.stop(graceMs);
    return { messages, reason };
  }

  it('closes stdin and lets the server finish and exit on its own before any signal', async () => {
    const script = `
      process.stdin.resume();
      process.stdin.on('end', () => setTimeout(() => process.stdout.write('{"jsonrpc":"2.0","method":"flushed"}\\n', () => process.exit(0)), 150));
      process.stdout.write('{"jsonrpc":"2.0","method":"ready"}\\n');
    `;
    const { messages, reason } = await stopped(script, 2000);
    expect(messages.map((message) => message.method)).toEqual(['flushed']);
    expect(reason).toBe('exited with code 0');
  });

  it('sends SIGTERM to a server that outlives its closed stdin, and SIGKILL to one that outlives SIGTERM', async () => {
    const lingering = `setInterval(() => undefined, 1000); process.stdout.write('{"jsonrpc":"2.0","method":"ready"}\\n');`;
    const terminated = await stopped(lingering, 200);
    expect(terminated.reason).toBe('killed by SIGTERM');

    const stubborn = `process.on('SIGTERM', () => undefined); ${lingering}`;
    const killed = await stopped(stubborn, 200);
    expect(killed.reason).toBe('killed by SIGKILL');
  });
});
