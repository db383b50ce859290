import { describe, expect, it } from 'vitest';
import { gitSchemeOf } from './access.js';

describe('gitSchemeOf: the protocol git would use for a repository value', () => {
  it.each([
    ['https://git.example.org/team/catalog.git', 'https', 'git.example.org'],
    ['https://bot:token@git.example.org/catalog.git', 'https', 'git.example.org'],
    ['http://[::1]:8080/catalog.git', 'http', '[::1]'],
    ['ssh://git@git.example.org:2222/catalog.git', 'ssh', 'git.example.org'],
    ['git@github.com:acme/catalog.git', 'ssh', 'github.com'],
    ['git.example.org:catalog.git', 'ssh', 'git.example.org'],
    ['git://git.example.org/catalog.git', 'git', 'git.example.org'],
    ['ext::sh -c touch% /tmp/pwned', 'ext', undefined],
    ['fd::17', 'fd', undefined],
  ])('%s is %s', (repository, scheme, host) => {
    expect(gitSchemeOf(repository)).toMatchObject({ scheme, host });
  });

  it('reads a local path, a file:// URL and an option-looking value as the file scheme with their path', () => {
    expect(gitSchemeOf('/srv/catalog')).toEqual({ scheme: 'file', host: undefined, path: '/srv/catalog' });
    expect(gitSchemeOf('../catalog')).toEqual({ scheme: 'file', host: undefined, path: '../catalog' });
    expect(gitSchemeOf('file:///srv/my%20catalog')).toEqual({ scheme: 'file', host: undefined, path: '/srv/my catalog' });
    expect(gitSchemeOf('--upload-pack=touch /tmp/pwned')).toMatchObject({ scheme: 'file' });
  });
});
