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
