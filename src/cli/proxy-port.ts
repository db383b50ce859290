import { InvalidInputError } from '../core/errors.js';

/** The `--proxy-port` parser; its own module because commander needs it before any verb runs, and `--help` should load nothing more. */
export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1024 || port > 65535) throw new InvalidInputError(`--proxy-port: "${text}" must be a port number from 1024 to 65535`);
  return port;
}
