import { spawn, type ChildProcess } from 'node:child_process';
import { asJsonRpcMessage, type JsonRpcMessage } from './jsonrpc.js';

export interface StdioServerCommand {
  command: string;
  args?: readonly string[];
  /** The whole environment of the server: nothing of this process's own is passed unless it is here. */
  env: Record<string, string>;
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
  /** The pieces of a line still waiting for its newline; only new chunks are searched, so a big message costs linear time. */
  #partial: string[] = [];
  /**
   * Lines waiting for the next check phase of the event loop: the requests of many clients that arrive
   * in one turn reach the server in one write, instead of one system call (and one wake-up of the
   * server) each.
   */
  #queued: string[] = [];
  #exited = false;
  readonly #exitPromise: Promise<void>;

  constructor(cmd: StdioServerCommand, handlers: StdioChildHandlers) {
    // No shell: arguments are passed as-is, so nothing in them is ever interpreted.
    this.#proc = spawn(cmd.command, cmd.args ?? [], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: cmd.env,
      cwd: cmd.cwd,
    });
    this.#proc.stdout?.setEncoding('utf8');
    this.#proc.stdout?.on('data', (chunk: string) => this.#receive(chunk, handlers));
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

  #receive(chunk: string, handlers: StdioChildHandlers): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    while (nl !== -1) {
      this.#partial.push(chunk.slice(start, nl));
      const line = this.#partial.join('').trim();
      this.#partial = [];
      if (line !== '') this.#handleLine(line, handlers);
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) this.#partial.push(chunk.slice(start));
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
    if (this.#queued.length === 0) setImmediate(this.#flush);
    this.#queued.push(`${JSON.stringify(message)}\n`);
  }

  readonly #flush = (): void => {
    const lines = this.#queued;
    if (lines.length === 0 || this.#exited) return;
    this.#queued = [];
    this.#proc.stdin?.write(lines.length === 1 ? (lines[0] as string) : lines.join(''));
  };

  /**
   * Stops the server the way MCP's stdio transport asks: its stdin is closed and it gets `graceMs` to exit on
   * its own (a server may finish writing what it holds), then SIGTERM, then after `graceMs` more SIGKILL.
   */
  async stop(graceMs = 2000): Promise<void> {
    if (this.#exited) return;
    this.#flush();
    this.#proc.stdin?.end();
    if (await this.#exitsWithin(graceMs)) return;
    this.#proc.kill('SIGTERM');
    if (await this.#exitsWithin(graceMs)) return;
    this.#proc.kill('SIGKILL');
    await this.#exitPromise;
  }

  async #exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const exited = await Promise.race([this.#exitPromise.then(() => true as const), late]);
    clearTimeout(timer);
    return exited;
  }
}
