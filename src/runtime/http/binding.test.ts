import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import { resolveBinding } from './binding.js';

const TOKEN = 'k3Jx9QmZ2vLr8TnW4yHb6PcD1sFg7AeU';
const files: Record<string, string> = { '/token': `${TOKEN}\n`, '/short': 'abc', '/spaced': `${TOKEN} ${TOKEN}` };
const readFile = (path: string): Promise<string> =>
  path in files ? Promise.resolve(files[path] ?? '') : Promise.reject(Object.assign(new Error('missing'), { code: 'ENOENT' }));
const bind = (address: string, options: { allowRemote?: boolean; tokenFile?: string } = {}) =>
  resolveBinding({ address, allowRemote: options.allowRemote ?? false, tokenFile: options.tokenFile, readFile });

describe('where runtime serve listens', () => {
  it('binds loopback addresses without more ado', async () => {
    expect(await bind('127.0.0.1:8180')).toEqual({ host: '127.0.0.1', port: 8180, token: undefined });
    expect(await bind('[::1]:9000')).toEqual({ host: '::1', port: 9000, token: undefined });
    expect(await bind('localhost:0')).toMatchObject({ host: 'localhost', port: 0 });
  });

  it('refuses a non-loopback address without both --allow-remote and a token file', async () => {
    await expect(bind('0.0.0.0:8180')).rejects.toThrow(/not a loopback address.*--allow-remote and --token-file/);
    await expect(bind('192.0.2.10:8180', { allowRemote: true })).rejects.toThrow(InvalidInputError);
    await expect(bind('192.0.2.10:8180', { tokenFile: '/token' })).rejects.toThrow(/--allow-remote/);
    expect(await bind('192.0.2.10:8180', { allowRemote: true, tokenFile: '/token' })).toEqual({ host: '192.0.2.10', port: 8180, token: TOKEN });
  });

  it('wants a readable token of at least 32 characters', async () => {
    await expect(bind('0.0.0.0:1', { allowRemote: true, tokenFile: '/short' })).rejects.toThrow(/at least 32 characters/);
    await expect(bind('0.0.0.0:1', { allowRemote: true, tokenFile: '/spaced' })).rejects.toThrow(/one word/);
    await expect(bind('0.0.0.0:1', { allowRemote: true, tokenFile: '/missing' })).rejects.toThrow(/cannot read \/missing \(ENOENT\)/);
  });

  it('names the flag of a malformed address', async () => {
    for (const address of ['8180', 'localhost', '127.0.0.1:99999', ':8180']) {
      await expect(bind(address), address).rejects.toThrow(/--address: .* must be HOST:PORT/);
    }
  });
});
