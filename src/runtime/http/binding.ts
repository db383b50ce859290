import { isIP } from 'node:net';
import { InvalidInputError } from '../../core/errors.js';

export interface BindingRequest {
  /** HOST:PORT, `[::1]:PORT` for IPv6. */
  address: string;
  allowRemote: boolean;
  /** Path of a file holding the bearer token. */
  tokenFile?: string | undefined;
  readFile: (path: string) => Promise<string>;
}

export interface Binding {
  host: string;
  port: number;
  token?: string | undefined;
}

const MIN_TOKEN_LENGTH = 32;

export function parseAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match?.[1] || port > 65535) throw new InvalidInputError(`--address: "${address}" must be HOST:PORT (example: 127.0.0.1:8180)`);
  return { host: match[1], port };
}

export function isLoopback(host: string): boolean {
  const lower = host.toLowerCase();
  if (lower === 'localhost' || lower === '::1') return true;
  return isIP(lower) === 4 && lower.startsWith('127.');
}

/**
 * Where `runtime serve` listens. The API starts and stops processes on this machine, so anything
 * but loopback needs both a deliberate `--allow-remote` and a bearer token that is hard to guess.
 */
export async function resolveBinding(request: BindingRequest): Promise<Binding> {
  const { host, port } = parseAddress(request.address);
  const token = request.tokenFile === undefined ? undefined : (await readToken(request.tokenFile, request.readFile));
  if (!isLoopback(host) && !(request.allowRemote && token !== undefined)) {
    throw new InvalidInputError(`refusing to listen on ${host}, which is not a loopback address: pass --allow-remote and --token-file <file> to serve other machines`);
  }
  return { host, port, token };
}

async function readToken(file: string, readFile: (path: string) => Promise<string>): Promise<string> {
  let text: string;
  try {
    text = await readFile(file);
  } catch (error) {
    throw new InvalidInputError(`--token-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new InvalidInputError(`--token-file: the token in ${file} must be one word of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  return token;
}
