import { describe, expect, it } from 'vitest';
import { OFFICIAL_META, packageRecord, PUBLISHER_META, RecordError, serverRecord, serverTags } from './records.js';

const server = (fields: Record<string, unknown> = {}) => ({ name: 'io.example/weather', version: '1.0.0', ...fields });
const skill = (fields: Record<string, unknown> = {}) => ({ namespace: 'io.example', name: 'pdf-tools', version: '1.0.0', ...fields });

/** The message of the RecordError that `read` throws. */
function rejection(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(RecordError);
    return (error as Error).message;
  }
  throw new Error('expected a RecordError, nothing was thrown');
}

describe('serverRecord names', () => {
  it.each([
    ['shortest: three characters', 'a/b'],
    ['uppercase letters', 'io.GitHub.Acme/Weather-MCP'],
    ['dots and hyphens in the namespace', 'com.example-corp.tools/x'],
    ['dots, underscores and hyphens after the slash', 'io.example/my_server.v2-beta'],
    ['exactly 200 characters', `io.example/${'a'.repeat(200 - 'io.example/'.length)}`],
  ])('accepts %s', (_case, name) => {
    expect(serverRecord({ server: server({ name }) }, false).name).toBe(name);
  });

  it.each([
    ['no slash', 'weather'],
    ['two slashes', 'io.example/tools/weather'],
    ['an empty namespace', '/weather'],
    ['an empty name', 'io.example/'],
    ['an underscore in the namespace', 'io_example/weather'],
    ['a space', 'io.example/my server'],
    ['an @', 'io.example/weather@1'],
    ['201 characters', `io.example/${'a'.repeat(201 - 'io.example/'.length)}`],
    ['a number instead of a string', 42],
    ['a missing name', undefined],
  ])('rejects %s, naming the field', (_case, name) => {
    expect(rejection(() => serverRecord({ server: server({ name }) }, false))).toMatch(/^name: /);
  });

  it('rejects a server that is not an object', () => {
    expect(rejection(() => serverRecord({ server: 'io.example/weather' }, false))).toBe('server: must be an object');
    expect(rejection(() => serverRecord({ server: [server()] }, false))).toBe('server: must be an object');
  });
});

describe('versions', () => {
  it.each([undefined, '', '   ', 7])('rejects %j as a version', (version) => {
    expect(rejection(() => serverRecord({ server: server({ version }) }, false))).toBe('version: must be a non-empty string');
    expect(rejection(() => packageRecord('skill', skill({ version }), false))).toBe('version: must be a non-empty string');
  });

  it('rejects versions longer than 255 characters', () => {
    expect(rejection(() => serverRecord({ server: server({ version: '1'.repeat(256) }) }, false))).toMatch(/at most 255/);
    expect(serverRecord({ server: server({ version: '1'.repeat(255) }) }, false).version).toHaveLength(255);
  });

  it('rejects "latest" when publishing (strict) and names the reason', () => {
    expect(rejection(() => serverRecord({ server: server({ version: 'latest' }) }, true))).toMatch(/"latest" is reserved/);
    expect(rejection(() => packageRecord('skill', skill({ version: 'latest' }), true))).toMatch(/"latest" is reserved/);
  });

  it.each(['^1.0.0', '~1', '>=1', '<2.0.0', '1.x', '1.2.X', 'x', '*', '1.2.*', '1.0.0 - 2.0.0', '1 || 2', '=1.0.0'])(
    'rejects the range %j when publishing',
    (version) => {
      expect(rejection(() => serverRecord({ server: server({ version }) }, true))).toBe(`version: "${version}" is a range; publish a specific version`);
      expect(rejection(() => packageRecord('plugin', { namespace: 'io.example', name: 'p', version }, true))).toMatch(/is a range/);
    },
  );

  it.each(['1.0.0', '2.1', '2025.8.4', 'v1.2.3', '1.0.0-beta.1', '1.0.0-rc.x', '1.0.0+build.x', 'auto', '0.0.1-x'])(
    'accepts the specific version %j when publishing',
    (version) => {
      expect(serverRecord({ server: server({ version }) }, true).version).toBe(version);
    },
  );

  it('takes synced versions as the upstream published them, "latest" and ranges included', () => {
    expect(serverRecord({ server: server({ version: 'latest' }) }, false).version).toBe('latest');
    expect(serverRecord({ server: server({ version: '^1.0.0' }) }, false).version).toBe('^1.0.0');
  });
});

describe('serverRecord fields', () => {
  it('keeps the record as published and reads the registry metadata beside it', () => {
    const published = server({ title: 'Weather', description: 'Forecasts', remotes: [{ type: 'sse', url: 'https://x.example/sse' }] });
    const record = serverRecord(
      {
        server: published,
        meta: {
          [OFFICIAL_META]: {
            status: 'deprecated',
            statusMessage: 'use io.example/weather2',
            publishedAt: '2025-09-08T23:47:09.452138Z',
            updatedAt: '2025-09-09T00:16:49Z',
            statusChangedAt: 'not a date',
          },
        },
      },
      false,
    );
    expect(record).toMatchObject({
      entryType: 'server',
      name: 'io.example/weather',
      version: '1.0.0',
      status: 'deprecated',
      statusMessage: 'use io.example/weather2',
      title: 'Weather',
      description: 'Forecasts',
      publishedAt: new Date('2025-09-08T23:47:09.452Z'),
      updatedAt: new Date('2025-09-09T00:16:49Z'),
      statusChangedAt: undefined,
    });
    expect(JSON.parse(record.body)).toEqual(published);
  });

  it('defaults to active and empty texts, and ignores an unknown upstream status', () => {
    const record = serverRecord({ server: server(), meta: { [OFFICIAL_META]: { status: 'on-fire' } } }, false);
    expect(record).toMatchObject({ status: 'active', statusMessage: null, title: '', description: '', tags: [] });
    expect(serverRecord({ server: server() }, false).status).toBe('active');
  });

  it.each(['active', 'deprecated', 'deleted'])('keeps the upstream status %s', (status) => {
    expect(serverRecord({ server: server(), meta: { [OFFICIAL_META]: { status } } }, false).status).toBe(status);
  });
});

describe('serverTags', () => {
  const withPublisherMeta = (meta: unknown) => ({ ...server(), _meta: { [PUBLISHER_META]: meta } });

  it('reads tags at the top of the publisher metadata', () => {
    expect(serverTags(withPublisherMeta({ tags: ['database', 'sql'] }))).toEqual(['database', 'sql']);
  });

  it('reads tags nested under a publisher key and a package key, as catalogs nest them', () => {
    const tags = serverTags(
      withPublisherMeta({
        'io.github.stacklok': {
          'ghcr.io/stacklok/dockyard/uvx/adb-mysql:1.0.0': { status: 'Active', tags: ['database', 'mysql'] },
          'ghcr.io/stacklok/dockyard/uvx/other:1.0.0': { tags: ['mysql', 'analytics'] },
        },
        tags: ['top'],
      }),
    );
    expect(tags.sort()).toEqual(['analytics', 'database', 'mysql', 'top']);
  });

  it('reads tags one level down', () => {
    expect(serverTags(withPublisherMeta({ publisher: { tags: ['one-level'] } }))).toEqual(['one-level']);
  });

  it('ignores tags deeper than two levels, non-string tags and tags outside the publisher metadata', () => {
    const record = {
      ...server(),
      tags: ['not-meta'],
      _meta: {
        other: { tags: ['other-namespace'] },
        [PUBLISHER_META]: { a: { b: { c: { tags: ['too-deep'] } } }, tags: ['kept', 3, null] },
      },
    };
    expect(serverTags(record)).toEqual(['kept']);
  });

  it('gives no tags without publisher metadata or with a malformed one', () => {
    expect(serverTags(server())).toEqual([]);
    expect(serverTags(withPublisherMeta('tags'))).toEqual([]);
    expect(serverTags(withPublisherMeta({ tags: 'database' }))).toEqual([]);
  });

  it('is what serverRecord stores as the tags', () => {
    expect(serverRecord({ server: withPublisherMeta({ p: { q: { tags: ['x'] } } }) }, false).tags).toEqual(['x']);
  });
});

describe('packageRecord names and namespaces', () => {
  it.each(['a', 'pdf', 'pdf-tools', 'web3-x-2', 'a'.repeat(64), '0day'])('accepts the skill name %j', (name) => {
    expect(packageRecord('skill', skill({ name }), false).name).toBe(`io.example/${name}`);
  });

  it.each([
    ['empty', ''],
    ['65 characters', 'a'.repeat(65)],
    ['uppercase', 'PDF-tools'],
    ['a double hyphen', 'pdf--tools'],
    ['a leading hyphen', '-pdf'],
    ['a trailing hyphen', 'pdf-'],
    ['an underscore', 'pdf_tools'],
    ['a dot', 'pdf.tools'],
    ['a space', 'pdf tools'],
  ])('rejects a skill name with %s', (_case, name) => {
    expect(rejection(() => packageRecord('skill', skill({ name }), false))).toMatch(/^name: .* 1 to 64 characters of a-z, 0-9 and single "-"/);
  });

  it('allows plugin names that a skill may not have', () => {
    expect(packageRecord('plugin', skill({ name: 'My_Plugin.v2' }), false).name).toBe('io.example/My_Plugin.v2');
    expect(rejection(() => packageRecord('plugin', skill({ name: '-x' }), false))).toMatch(/^name: /);
    expect(rejection(() => packageRecord('plugin', skill({ name: 'a'.repeat(65) }), false))).toMatch(/^name: /);
  });

  it.each(['io.example', 'com.Example-Corp.tools', 'example', '1password.com'])('accepts the namespace %j', (namespace) => {
    expect(packageRecord('skill', skill({ namespace }), false).name).toBe(`${namespace}/pdf-tools`);
  });

  it.each([
    ['empty', ''],
    ['a slash', 'io.example/tools'],
    ['a leading dot', '.io.example'],
    ['a leading hyphen', '-io.example'],
    ['an underscore', 'io_example'],
    ['more than 200 characters', `io.${'a'.repeat(198)}`],
    ['a number', 7],
    ['nothing', undefined],
  ])('rejects a namespace with %s', (_case, namespace) => {
    expect(rejection(() => packageRecord('skill', skill({ namespace }), false))).toMatch(/^namespace: .* must be reverse-DNS/);
  });

  it('rejects a record that is not an object', () => {
    expect(rejection(() => packageRecord('skill', 'pdf-tools', false))).toBe('skill: must be an object');
    expect(rejection(() => packageRecord('plugin', null, false))).toBe('plugin: must be an object');
  });
});

describe('packageRecord status and fields', () => {
  it('defaults the status to active and lowercases a given one', () => {
    expect(packageRecord('skill', skill(), false).status).toBe('active');
    const record = packageRecord('skill', skill({ status: 'Deprecated' }), false);
    expect(record.status).toBe('deprecated');
    expect((JSON.parse(record.body) as { status: string }).status).toBe('deprecated');
  });

  it('rejects an unknown status, naming it', () => {
    expect(rejection(() => packageRecord('skill', skill({ status: 'retired' }), false))).toBe('status: "retired" must be active, deprecated or archived');
    expect(rejection(() => packageRecord('skill', skill({ status: 3 }), false))).toMatch(/^status: 3 must be/);
    // `deleted` is a server status; the skill and plugin status filter has no such value
    expect(rejection(() => packageRecord('plugin', skill({ status: 'deleted' }), false))).toMatch(/^status: "deleted"/);
  });

  it.each(['active', 'deprecated', 'archived', 'ARCHIVED'])('accepts the status %j', (status) => {
    expect(packageRecord('skill', skill({ status }), true).status).toBe(status.toLowerCase());
  });

  it('drops the fields the registry sets itself and keeps the rest of the record', () => {
    const record = packageRecord(
      'skill',
      skill({ id: 'x', isLatest: true, createdAt: '2020-01-01T00:00:00Z', updatedAt: '2020-01-02T00:00:00Z', allowedTools: ['Read'], title: 'PDF' }),
      true,
    );
    expect(JSON.parse(record.body)).toEqual({ namespace: 'io.example', name: 'pdf-tools', version: '1.0.0', allowedTools: ['Read'], title: 'PDF', status: 'active' });
    expect(record.title).toBe('PDF');
    // a publisher cannot set the registry's timestamps
    expect(record.publishedAt).toBeUndefined();
    expect(record.updatedAt).toBeUndefined();
  });

  it('keeps the upstream timestamps of synced records', () => {
    const record = packageRecord('skill', skill({ createdAt: '2020-01-01T00:00:00Z', updatedAt: '2020-01-02T00:00:00Z' }), false);
    expect(record.publishedAt).toEqual(new Date('2020-01-01T00:00:00Z'));
    expect(record.updatedAt).toEqual(new Date('2020-01-02T00:00:00Z'));
  });

  it('reads tags from the record or else from its metadata, strings only', () => {
    expect(packageRecord('skill', skill({ tags: ['pdf', 1], metadata: { tags: ['ignored'] } }), false).tags).toEqual(['pdf']);
    expect(packageRecord('plugin', skill({ metadata: { tags: ['docs'] } }), false).tags).toEqual(['docs']);
    expect(packageRecord('plugin', skill(), false).tags).toEqual([]);
  });
});
