import { spawn, type ChildProcess } from 'node:child_process';
import { asJsonRpcMessage, type JsonRpcMessage } from './jsonrpc.js';

export interface StdioServerCommand {
  command: string;
  args?: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface StdioChildHandlers {
  onMessage: (message: JsonRpcMessage) => void;
  onExit: (reason: string) => void;
  onStderr?: (chunk: string) => void;
}

/** An MCP server process speaking newline-delimited JSON-RPC on stdin/stdout. */
export class StdioChild {
  readonly #proc: ChildProcess;
  #buffer = '';
  #exited = false;
  readonly #exitPromise: Promise<void>;

  constructor(cmd: StdioServerCommand, handlers: StdioChildHandlers) {
    // No shell: arguments are passed as-is, so nothing in them is ever interpreted.
    this.#proc = spawn(cmd.command, cmd.args ?? [], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: cmd.env ?? process.env,
      cwd: cmd.cwd,
    });
    this.#proc.stdout?.setEncoding('utf8');
    this.#proc.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let nl = this.#buffer.indexOf('\n');
      while (nl !== -1) {
        const line = this.#buffer.slice(0, nl).trim();
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line !== '') this.#handleLine(line, handlers);
        nl = this.#buffer.indexOf('\n');
      }
    });
    this.#proc.stderr?.setEncoding('utf8');
    this.#proc.stderr?.on('data', (chunk: string) => handlers.onStderr?.(chunk));
    // Writes racing a dying process fail with EPIPE; the exit handler reports the real cause.
    this.#proc.stdin?.on('error', () => undefined);
    this.#exitPromise = new Promise((resolve) => {
      const finish = (reason: string): void => {
        if (this.#exited) return;
        this.#exited = true;
        handlers.onExit(reason);
        resolve();
      };
      this.#proc.on('error', (err) => finish(`failed to start: ${err.message}`));
      this.#proc.on('exit', (code, signal) =>
        finish(signal !== null ? `killed by ${signal}` : `exited with code ${String(code)}`),
      );
    });
  }

  #handleLine(line: string, handlers: StdioChildHandlers): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // Servers sometimes print banners on stdout; those are not protocol messages.
      handlers.onStderr?.(`${line}\n`);
      return;
    }
    const message = asJsonRpcMessage(parsed);
    if (message !== undefined) handlers.onMessage(message);
  }

  get pid(): number | undefined {
    return this.#proc.pid;
  }

  get exited(): boolean {
    return this.#exited;
  }

  send(message: JsonRpcMessage): void {
    if (this.#exited) return;
    this.#proc.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  async stop(graceMs = 2000): Promise<void> {
    if (this.#exited) return;
    this.#proc.stdin?.end();
    this.#proc.kill('SIGTERM');
    const timer = setTimeout(() => this.#proc.kill('SIGKILL'), graceMs);
    await this.#exitPromise;
    clearTimeout(timer);
  }
}
