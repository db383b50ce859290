import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { startLiveRegistry, startOidcProvider, type HttpResult, type LiveRegistry, type OidcProvider } from '../helpers/oidc-provider.js';
import { catalogFile } from '../helpers/registry.js';

/*
 * Full authorization end to end (oauth with authz): roles, the visibility and subset rules with scalar
 * and array values, 404 versus 403, shadowing among visible entries, publishing rules and the
 * superAdmin bypass, through the real server on a port with tokens of a local OpenID provider.
 */

const ROLES = {
  superAdmin: [{ role: 'super-admin' }],
  manageSources: [{ org: 'acme', role: 'admin' }],
  manageRegistries: [{ org: 'acme', role: 'admin' }],
  manageEntries: [{ role: 'writer' }, { team: ['platform', 'data'] }],
};

/** Who calls, by the claims of their tokens. */
const PERSONAS = {
  root: { role: 'super-admin' },
  admin: { org: 'acme', role: 'admin' },
  adminTeamT: { org: 'acme', team: 't', role: 'admin' },
  adminData: { org: 'acme', team: 'data', role: 'admin' },
  adminDataMl: { org: 'acme', team: ['data', 'ml'], role: 'admin' },
  adminMl: { org: 'acme', team: 'ml', role: 'admin' },
  adminWebMl: { org: 'acme', team: ['web', 'ml'], role: 'admin' },
  adminWeb: { org: 'acme', team: 'web', role: 'admin' },
  adminTwoOrgs: { org: ['acme', 'globex'], role: 'admin' },
  adminRoles: { org: 'acme', role: ['admin', 'dev'] },
  allRoles: { org: 'acme', role: ['admin', 'writer'] },
  writer: { org: 'acme', role: 'writer' },
  dataDev: { org: 'acme', team: 'data' },
  mlDev: { org: 'acme', team: 'ml' },
  platformDev: { org: 'acme', team: ['web', 'platform'] },
  webDataDev: { org: 'acme', team: ['web', 'data'] },
  webDev: { org: 'acme', team: 'web' },
  reader: { org: 'acme' },
  readerTeamT: { org: 'acme', team: 't' },
  globexWriter: { org: 'globex', role: 'writer' },
  globexAdmin: { org: 'globex', role: 'admin' },
  globexTeamT: { org: 'globex', team: 't' },
  initech: { org: 'initech' },
  initechOrGlobex: { org: ['initech', 'globex'] },
  roleOnly: { role: 'admin' },
  numericOrg: { org: 7, role: 'admin' },
  mixedOrg: { org: ['acme', 7], role: 'admin' },
  mixedRole: { org: 'acme', role: ['admin', 5] },
  nobody: {},
} satisfies Record<string, Record<string, unknown>>;
type Persona = keyof typeof PERSONAS;

const server = (name: string, version: string) => ({ name, version, description: `${name} ${version}` });
const skill = (namespace: string, name: string, version = '1.0.0') => ({ namespace, name, version, description: `${name} skill` });
const plugin = (namespace: string, name: string, version = '1.0.0') => ({ namespace, name, version, description: `${name} plugin` });
const catalog = (data: { servers?: object[]; skills?: object[]; plugins?: object[] }) => ({ version: '1.0.0', meta: {}, data });

const CATALOGS = {
  'acme-tools': catalog({
    servers: [server('com.acme/shared', '1.0.0'), server('com.acme/shared', '1.1.0'), server('com.acme/tools', '1.0.0')],
    skills: [skill('com.acme', 'pdf')],
    plugins: [plugin('com.acme', 'review')],
  }),
  'acme-data': catalog({ servers: [server('com.acme/shared', '2.0.0'), server('com.acme/warehouse', '1.0.0')], skills: [skill('com.acme', 'sql')] }),
  globex: catalog({ servers: [server('com.globex/widgets', '1.0.0'), server('com.acme/shared', '9.0.0')], skills: [skill('com.globex', 'slides')], plugins: [plugin('com.globex', 'lint')] }),
  unlabeled: catalog({ servers: [server('com.none/hidden', '1.0.0')], skills: [skill('com.none', 'secret')] }),
  'ex-org': catalog({ servers: [server('com.ex/org', '1.0.0')] }),
  'ex-org-team': catalog({ servers: [server('com.ex/org-team', '1.0.0')] }),
};

interface ServerList {
  servers: { server: { name: string; version: string } }[];
}
interface PackageList {
  skills?: { namespace: string; name: string }[];
  plugins?: { namespace: string; name: string }[];
}
interface ErrorBody {
  error: string;
}

let corp: OidcProvider;
let partner: OidcProvider;
const tokens = new Map<Persona, string>();
const files = new Map<string, string>();

beforeAll(async () => {
  corp = await startOidcProvider({ audience: 'api://registry' });
  partner = await startOidcProvider({ audience: 'api://partner' });
  for (const [persona, claims] of Object.entries(PERSONAS)) tokens.set(persona as Persona, await corp.mint({ sub: persona, claims }));
  for (const [name, document] of Object.entries(CATALOGS)) files.set(name, await catalogFile(document));
});
afterAll(async () => {
  await corp.close();
  await partner.close();
});

describe.each(testDatabaseTargets())('authorization over HTTP ($name)', (target) => {
  let registry: LiveRegistry;

  const call = <T = ErrorBody>(persona: Persona, method: string, path: string, body?: unknown): Promise<HttpResult<T>> =>
    registry.call<T>(method, path, { token: tokens.get(persona) ?? '', ...(body !== undefined && { body }) });
  const status = async (persona: Persona, method: string, path: string, body?: unknown) => (await call(persona, method, path, body)).status;
  /** The names of a list read one item a page, following metadata.nextCursor to the end. */
  const everyPage = async (persona: Persona, path: string, key: 'sources' | 'registries') => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call<Record<string, { name: string }[]> & { metadata: { nextCursor?: string } }>(persona, 'GET', `${path}?limit=1${cursor === undefined ? '' : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      names.push(...(page.body[key] ?? []).map((item) => item.name));
      cursor = page.body.metadata.nextCursor;
    } while (cursor !== undefined);
    return names;
  };
  const serverNames = async (persona: Persona, registryName: string) => {
    const response = await call<ServerList>(persona, 'GET', `/registry/${registryName}/v0.1/servers`);
    expect(response.status).toBe(200);
    return response.body.servers.map((record) => `${record.server.name}@${record.server.version}`).filter((name) => !name.startsWith('io.pub/')).sort();
  };
  const versionsOf = async (persona: Persona, registryName: string, name: string) => {
    const response = await call<ServerList>(persona, 'GET', `/registry/${registryName}/v0.1/servers/${encodeURIComponent(name)}/versions`);
    return response.status === 200 ? response.body.servers.map((record) => record.server.version).sort() : response.status;
  };
  const publish = (persona: Persona, name: string, version: string, claims?: unknown) =>
    call(persona, 'POST', '/v1/entries', { server: server(name, version), ...(claims !== undefined && { claims }) });
  const fileSource = (claims?: Record<string, unknown>, name = 'com.api/item') => ({ file: { data: catalog({ servers: [server(name, '1.0.0')] }) }, ...(claims && { claims }) });

  beforeAll(async () => {
    registry = await startLiveRegistry({
      target,
      config: {
        sources: [
          { name: 'internal', managed: {}, claims: { org: 'acme' } },
          { name: 'acme-tools', file: { path: files.get('acme-tools') }, claims: { org: 'acme' } },
          { name: 'acme-data', file: { path: files.get('acme-data') }, claims: { org: 'acme', team: ['data', 'ml'] } },
          { name: 'globex', file: { path: files.get('globex') }, claims: { org: 'globex' } },
          { name: 'unlabeled', file: { path: files.get('unlabeled') } },
          { name: 'ex-org', file: { path: files.get('ex-org') }, claims: { org: 'acme' } },
          { name: 'ex-org-team', file: { path: files.get('ex-org-team') }, claims: { org: 'acme', team: 't' } },
        ],
        registries: [
          { name: 'acme', sources: ['internal', 'acme-data', 'acme-tools', 'unlabeled'], claims: { org: 'acme' } },
          { name: 'everyone', sources: ['internal', 'acme-data', 'acme-tools', 'globex', 'unlabeled', 'ex-org', 'ex-org-team'], claims: { org: ['acme', 'globex'] } },
          { name: 'globex', sources: ['globex'], claims: { org: 'globex' } },
          { name: 'nolabel', sources: ['acme-tools'] },
          { name: 'ex-org', sources: ['ex-org'], claims: { org: 'acme' } },
          { name: 'ex-org-team', sources: ['ex-org-team'], claims: { org: 'acme', team: 't' } },
        ],
        auth: {
          mode: 'oauth',
          oauth: {
            resourceUrl: 'https://registry.example.com',
            publicPaths: ['/custom/public'],
            providers: [
              { name: 'corp', issuerUrl: corp.issuer, audience: corp.audience },
              { name: 'partner', issuerUrl: partner.issuer, audience: partner.audience },
            ],
          },
          authz: { roles: ROLES },
        },
      },
    });
    // resources made through the API by the superAdmin, so that updates and deletes can be tried on them
    for (const [name, claims] of [
      ['api-acme', { org: 'acme' }],
      ['api-globex', { org: 'globex' }],
      ['api-unlabeled', undefined],
    ] as const) {
      expect(await status('root', 'PUT', `/v1/sources/${name}`, fileSource(claims))).toBe(201);
      expect(await status('root', 'PUT', `/v1/registries/${name}`, { sources: [name], ...(claims && { claims }) })).toBe(201);
    }
    await registry.sync();
  });
  afterAll(async () => {
    expect(await registry.serverErrors()).toEqual([]);
    await registry.close();
  });

  describe('/v1/me', () => {
    it.each([
      ['root', ['superAdmin']],
      ['admin', ['manageSources', 'manageRegistries']],
      ['adminRoles', ['manageSources', 'manageRegistries']],
      ['allRoles', ['manageSources', 'manageRegistries', 'manageEntries']],
      ['writer', ['manageEntries']],
      ['dataDev', ['manageEntries']],
      ['platformDev', ['manageEntries']],
      ['webDev', []],
      ['reader', []],
      ['roleOnly', []],
      ['globexAdmin', []],
      ['globexWriter', ['manageEntries']],
      ['numericOrg', []],
      ['mixedOrg', []],
      ['mixedRole', []],
      ['nobody', []],
    ] as [Persona, string[]][])('reports %s with roles %j', async (persona, roles) => {
      expect(await call(persona, 'GET', '/v1/me')).toMatchObject({ status: 200, body: { subject: persona, roles } });
    });

    it('takes tokens of the second provider alike', async () => {
      const token = await partner.mint({ sub: 'partner-admin', claims: { org: 'acme', role: 'admin' } });
      expect((await registry.call('GET', '/v1/me', { token })).body).toEqual({ subject: 'partner-admin', roles: ['manageSources', 'manageRegistries'] });
      expect((await registry.call('GET', '/v1/sources/acme-tools', { token })).status).toBe(200);
    });
  });

  describe('roles', () => {
    const withoutManageSources: Persona[] = ['writer', 'reader', 'roleOnly', 'globexAdmin', 'webDev', 'numericOrg', 'mixedRole', 'nobody'];

    it('manageSources: every /v1/sources route, reads included', async () => {
      const routes: [string, string, unknown?][] = [
        ['GET', '/v1/sources'],
        ['GET', '/v1/sources/acme-tools'],
        ['GET', '/v1/sources/acme-tools/entries'],
        ['POST', '/v1/sources/acme-tools/sync'],
        ['PUT', '/v1/sources/role-check', fileSource({ org: 'acme' })],
        ['DELETE', '/v1/sources/api-acme'],
        // the role is checked before the resource is looked up
        ['GET', '/v1/sources/no-such-source'],
      ];
      for (const persona of withoutManageSources) {
        for (const [method, path, body] of routes) expect(await status(persona, method, path, body), `${persona} ${method} ${path}`).toBe(403);
      }
      for (const persona of ['admin', 'adminRoles', 'root'] as Persona[]) {
        expect(await status(persona, 'GET', '/v1/sources')).toBe(200);
        expect(await status(persona, 'GET', '/v1/sources/acme-tools')).toBe(200);
        expect(await status(persona, 'GET', '/v1/sources/acme-tools/entries')).toBe(200);
        expect(await status(persona, 'POST', '/v1/sources/acme-tools/sync')).toBe(202);
        expect(await status(persona, 'GET', '/v1/sources/no-such-source')).toBe(404);
      }
      expect(await status('admin', 'PUT', '/v1/sources/role-check', fileSource({ org: 'acme' }))).toBe(201);
      expect(await status('admin', 'DELETE', '/v1/sources/role-check')).toBe(204);
    });

    it('manageRegistries: writes of registries and their entry listings; a valid token reads them', async () => {
      for (const persona of ['writer', 'reader', 'roleOnly', 'globexAdmin', 'webDev'] as Persona[]) {
        expect(await status(persona, 'PUT', '/v1/registries/role-check', { sources: ['acme-tools'], claims: { org: 'acme' } }), persona).toBe(403);
        expect(await status(persona, 'DELETE', '/v1/registries/api-acme'), persona).toBe(403);
        expect(await status(persona, 'GET', '/v1/registries/acme/entries'), persona).toBe(403);
        expect(await status(persona, 'GET', '/v1/registries/no-such-registry/entries'), persona).toBe(403);
      }
      for (const persona of ['writer', 'reader', 'webDev'] as Persona[]) {
        expect(await status(persona, 'GET', '/v1/registries'), persona).toBe(200);
        expect(await status(persona, 'GET', '/v1/registries/acme'), persona).toBe(200);
      }
      expect(await status('admin', 'GET', '/v1/registries/acme/entries')).toBe(200);
      expect(await status('admin', 'PUT', '/v1/registries/role-check', { sources: ['acme-tools'], claims: { org: 'acme' } })).toBe(201);
      expect(await status('admin', 'PUT', '/v1/registries/role-check', { sources: ['acme-tools', 'ex-org'], claims: { org: 'acme' } })).toBe(200);
      expect(await status('admin', 'DELETE', '/v1/registries/role-check')).toBe(204);
    });

    it('manageEntries: any one claim map, an array value in the map matching any one value', async () => {
      for (const persona of ['admin', 'reader', 'webDev', 'roleOnly', 'nobody'] as Persona[]) {
        expect((await publish(persona, 'io.pub/role-check', '1.0.0', { org: 'acme' })).status, persona).toBe(403);
        expect(await status(persona, 'GET', '/v1/entries/server/io.pub%2Frole-check/claims'), persona).toBe(403);
        expect(await status(persona, 'PUT', '/v1/entries/server/io.pub%2Frole-check/claims', { claims: { org: 'acme' } }), persona).toBe(403);
        expect(await status(persona, 'DELETE', '/v1/entries/server/io.pub%2Frole-check/versions/1.0.0'), persona).toBe(403);
      }
      // {role: writer}, {team: data} and {team: [web, platform]} each match one map of the role
      for (const [persona, version] of [['writer', '1.0.0'], ['dataDev', '1.1.0'], ['platformDev', '1.2.0'], ['webDataDev', '1.3.0']] as [Persona, string][]) {
        expect((await publish(persona, 'io.pub/role-check', version, { org: 'acme' })).status, persona).toBe(201);
        expect(await call(persona, 'GET', '/v1/entries/server/io.pub%2Frole-check/claims')).toEqual(expect.objectContaining({ status: 200, body: { claims: { org: 'acme' } } }));
      }
      expect(await status('dataDev', 'PUT', '/v1/entries/server/io.pub%2Frole-check/claims', { claims: { org: 'acme' } })).toBe(204);
      expect(await status('platformDev', 'DELETE', '/v1/entries/server/io.pub%2Frole-check/versions/1.0.0')).toBe(204);
      expect(await status('writer', 'DELETE', '/v1/entries/server/io.pub%2Frole-check/versions/1.0.0')).toBe(404);
    });

    it('validates the request before roles and claims (400 first)', async () => {
      expect(await status('writer', 'PUT', '/v1/sources/Not_A_Label', fileSource({ org: 'acme' }))).toBe(400);
      expect(await status('writer', 'PUT', '/v1/sources/bad-body', { file: { data: 'not json' }, unknown: true })).toBe(400);
      expect(await status('reader', 'PUT', '/v1/registries/bad-body', { sources: 'acme-tools' })).toBe(400);
      expect(await status('reader', 'POST', '/v1/entries', {})).toBe(400);
      expect(await status('reader', 'POST', '/v1/entries', { server: server('io.pub/x', '1.0.0') })).toBe(400);
      expect(await status('reader', 'POST', '/v1/entries', { server: server('io.pub/x', '1.0.0'), claims: { org: 5 } })).toBe(400);
      expect(await status('reader', 'PUT', '/v1/entries/server/io.pub%2Fx/claims', { claims: { org: ['a', 5] } })).toBe(400);
    });
  });

  describe('the four examples of the specification, through real endpoints', () => {
    // resource {org: a} + caller {org: a, team: t} allows; {org: a, team: t} + {org: a} denies;
    // a resource without claims denies; different org values deny
    const examples: [string, string, string, Persona, boolean][] = [
      ['resource {org} and a caller holding org and team', 'ex-org', 'com.ex/org', 'adminTeamT', true],
      ['resource {org, team} and a caller holding only org', 'ex-org-team', 'com.ex/org-team', 'admin', false],
      ['a resource without claims', 'nolabel', 'com.none/hidden', 'adminTeamT', false],
      ['a resource of another org', 'ex-org', 'com.ex/org', 'globexTeamT', false],
    ];

    it.each(examples)('%s', async (_label, resource, entry, persona, allowed) => {
      // the consumer registry gate
      expect(await status(persona, 'GET', `/registry/${resource}/v0.1/servers`)).toBe(allowed ? 200 : 403);
      // the admin registry read: invisible means absent
      expect(await status(persona, 'GET', `/v1/registries/${resource}`)).toBe(allowed ? 200 : 404);
      expect((await call<{ registries: { name: string }[] }>(persona, 'GET', '/v1/registries')).body.registries.some((r) => r.name === resource)).toBe(allowed);
      // entry visibility inside a registry the caller passes
      expect(await status(persona, 'GET', `/registry/everyone/v0.1/servers/${encodeURIComponent(entry)}/versions/1.0.0`)).toBe(allowed ? 200 : 404);
      expect((await serverNames(persona, 'everyone')).includes(`${entry}@1.0.0`)).toBe(allowed);
      // the admin source read, for callers with manageSources
      if (persona !== 'globexTeamT') {
        const source = resource === 'nolabel' ? 'unlabeled' : resource;
        expect(await status(persona, 'GET', `/v1/sources/${source}`)).toBe(allowed ? 200 : 404);
        expect(await status(persona, 'GET', `/v1/sources/${source}/entries`)).toBe(allowed ? 200 : 404);
      }
    });
  });

  describe('array values: visibility takes any one value, subset every value', () => {
    it('visibility of a source claiming team [data, ml]', async () => {
      for (const [persona, visible] of [
        ['admin', false],
        ['adminWeb', false],
        ['adminData', true],
        ['adminMl', true],
        ['adminDataMl', true],
        ['adminWebMl', true],
      ] as [Persona, boolean][]) {
        expect(await status(persona, 'GET', '/v1/sources/acme-data'), persona).toBe(visible ? 200 : 404);
        expect((await call<{ sources: { name: string }[] }>(persona, 'GET', '/v1/sources')).body.sources.some((s) => s.name === 'acme-data'), persona).toBe(visible);
      }
      for (const [persona, visible] of [
        ['reader', false],
        ['webDev', false],
        ['platformDev', false],
        ['dataDev', true],
        ['mlDev', true],
        ['webDataDev', true],
      ] as [Persona, boolean][]) {
        expect(await status(persona, 'GET', '/registry/acme/v0.1/servers/com.acme%2Fwarehouse/versions/1.0.0'), persona).toBe(visible ? 200 : 404);
        expect(await status(persona, 'GET', '/registry/acme/v0.1/x/dev.toolyard/skills/com.acme/sql'), persona).toBe(visible ? 200 : 404);
      }
    });

    it('the registry gate of a registry claiming org [acme, globex]', async () => {
      for (const [persona, allowed] of [
        ['reader', true],
        ['globexWriter', true],
        ['initechOrGlobex', true],
        ['initech', false],
        ['nobody', false],
        ['numericOrg', false],
        ['mixedOrg', false],
      ] as [Persona, boolean][]) {
        expect(await status(persona, 'GET', '/registry/everyone/v0.1/servers'), persona).toBe(allowed ? 200 : 403);
      }
    });

    it('subset on create and update of sources and registries', async () => {
      const claims = { org: 'acme', team: ['data', 'ml'] };
      expect(await status('adminData', 'PUT', '/v1/sources/subset-src', fileSource(claims))).toBe(403);
      expect(await status('adminWebMl', 'PUT', '/v1/sources/subset-src', fileSource(claims))).toBe(403);
      expect(await status('adminDataMl', 'PUT', '/v1/sources/subset-src', fileSource(claims))).toBe(201);
      expect(await status('adminData', 'PUT', '/v1/registries/subset-reg', { sources: ['subset-src'], claims })).toBe(403);
      expect(await status('adminDataMl', 'PUT', '/v1/registries/subset-reg', { sources: ['subset-src'], claims })).toBe(201);
      // adminData sees both (it holds one of the team values) but may not give them claims it does not hold
      expect(await status('adminData', 'GET', '/v1/sources/subset-src')).toBe(200);
      expect(await status('adminData', 'PUT', '/v1/sources/subset-src', fileSource(claims))).toBe(403);
      expect(await status('adminData', 'PUT', '/v1/sources/subset-src', fileSource({ org: 'acme', team: 'data' }))).toBe(200);
      expect(await status('adminData', 'PUT', '/v1/registries/subset-reg', { sources: ['subset-src'], claims })).toBe(403);
      expect(await status('adminData', 'PUT', '/v1/registries/subset-reg', { sources: ['subset-src'], claims: { org: 'acme', team: ['data'] } })).toBe(200);
      // an org list is a subset only of a caller holding every org of it; scalars behave the same under both rules
      expect(await status('admin', 'PUT', '/v1/sources/two-orgs', fileSource({ org: ['acme', 'globex'] }))).toBe(403);
      expect(await status('adminTwoOrgs', 'PUT', '/v1/sources/two-orgs', fileSource({ org: ['acme', 'globex'] }))).toBe(201);
      expect(await status('admin', 'GET', '/v1/sources/two-orgs')).toBe(200);
      expect(await status('admin', 'PUT', '/v1/sources/two-orgs', fileSource({ org: 'acme' }))).toBe(200);
      expect(await status('admin', 'DELETE', '/v1/sources/two-orgs')).toBe(204);
      expect(await status('adminData', 'DELETE', '/v1/registries/subset-reg')).toBe(204);
      expect(await status('adminData', 'DELETE', '/v1/sources/subset-src')).toBe(204);
    });
  });

  describe('404 versus 403', () => {
    it('an invisible source is absent: 404 on get, update, delete, entries and sync', async () => {
      for (const source of ['api-globex', 'api-unlabeled', 'acme-data', 'globex', 'unlabeled']) {
        expect(await status('admin', 'GET', `/v1/sources/${source}`), source).toBe(404);
        expect(await status('admin', 'GET', `/v1/sources/${source}/entries`), source).toBe(404);
        expect(await status('admin', 'POST', `/v1/sources/${source}/sync`), source).toBe(404);
        expect(await status('admin', 'DELETE', `/v1/sources/${source}`), source).toBe(404);
      }
      for (const source of ['api-globex', 'api-unlabeled']) {
        expect(await status('admin', 'PUT', `/v1/sources/${source}`, fileSource({ org: 'acme' })), source).toBe(404);
        expect(await status('root', 'GET', `/v1/sources/${source}`), source).toBe(200);
      }
      const listed = (await call<{ sources: { name: string }[] }>('admin', 'GET', '/v1/sources')).body.sources.map((s) => s.name).sort();
      expect(listed).toEqual(['acme-tools', 'api-acme', 'ex-org', 'internal']);
      // page by page, hidden sources leave their pages and the cursor goes on past them
      expect((await everyPage('admin', '/v1/sources', 'sources')).sort()).toEqual(listed);
    });

    it('an invisible registry is absent: 404 on get, update, delete and entries', async () => {
      for (const name of ['api-globex', 'api-unlabeled', 'globex', 'nolabel', 'ex-org-team']) {
        expect(await status('admin', 'GET', `/v1/registries/${name}`), name).toBe(404);
        expect(await status('admin', 'GET', `/v1/registries/${name}/entries`), name).toBe(404);
        expect(await status('admin', 'DELETE', `/v1/registries/${name}`), name).toBe(404);
      }
      for (const name of ['api-globex', 'api-unlabeled']) {
        expect(await status('admin', 'PUT', `/v1/registries/${name}`, { sources: ['acme-tools'], claims: { org: 'acme' } }), name).toBe(404);
        expect(await status('root', 'GET', `/v1/registries/${name}`), name).toBe(200);
      }
      const listed = (await call<{ registries: { name: string }[] }>('admin', 'GET', '/v1/registries')).body.registries.map((r) => r.name).sort();
      expect(listed).toEqual(['acme', 'api-acme', 'everyone', 'ex-org']);
      expect((await everyPage('admin', '/v1/registries', 'registries')).sort()).toEqual(listed);
      expect((await call<{ registries: { name: string }[] }>('nobody', 'GET', '/v1/registries')).body.registries).toEqual([]);
      expect(await everyPage('nobody', '/v1/registries', 'registries')).toEqual([]);
    });

    it('the consumer registry gate answers 403 before any data, for claims not satisfied and for no claims', async () => {
      const routes = [
        '/v0.1/servers',
        '/v0.1/servers?version=latest',
        '/v0.1/servers/com.acme%2Ftools/versions',
        '/v0.1/servers/com.acme%2Ftools/versions/latest',
        '/v0.1/servers/com.acme%2Ftools/versions/1.0.0',
        '/v0.1/servers/no.such%2Fserver/versions',
        '/v0.1/x/dev.toolyard/skills',
        '/v0.1/x/dev.toolyard/skills/com.acme/pdf',
        '/v0.1/x/dev.toolyard/skills/com.acme/pdf/versions',
        '/v0.1/x/dev.toolyard/plugins',
        '/v0.1/x/dev.toolyard/plugins/com.acme/review/versions/1.0.0',
      ];
      for (const [persona, registryName] of [
        ['reader', 'globex'],
        ['reader', 'nolabel'],
        ['admin', 'nolabel'],
        ['allRoles', 'nolabel'],
        ['globexWriter', 'acme'],
        ['reader', 'ex-org-team'],
      ] as [Persona, string][]) {
        for (const route of routes) {
          const response = await call(persona, 'GET', `/registry/${registryName}${route}`);
          expect(response.status, `${persona} ${registryName}${route}`).toBe(403);
          expect(Object.keys(response.body)).toEqual(['error']);
        }
      }
      expect(await status('readerTeamT', 'GET', '/registry/ex-org-team/v0.1/servers')).toBe(200);
      expect(await status('reader', 'GET', '/registry/no-such-registry/v0.1/servers')).toBe(404);
      expect(await status('root', 'GET', '/registry/nolabel/v0.1/servers/com.acme%2Ftools/versions/1.0.0')).toBe(200);
    });

    it('entries: GET claims of an invisible entry is 403; PUT claims and delete of it are 404; publishing into an invisible managed source is 403', async () => {
      expect((await publish('root', 'io.pub/globex-only', '1.0.0', { org: 'globex' })).status).toBe(201);
      expect(await status('writer', 'GET', '/v1/entries/server/io.pub%2Fglobex-only/claims')).toBe(403);
      expect(await status('writer', 'GET', '/v1/entries/server/io.pub%2Fno-such/claims')).toBe(404);
      expect(await status('writer', 'PUT', '/v1/entries/server/io.pub%2Fglobex-only/claims', { claims: { org: 'acme' } })).toBe(404);
      expect(await status('writer', 'DELETE', '/v1/entries/server/io.pub%2Fglobex-only/versions/1.0.0')).toBe(404);
      expect(await status('globexWriter', 'GET', '/v1/entries/server/io.pub%2Fglobex-only/claims')).toBe(200);
      // the managed source claims {org: acme}: a globex writer may not publish into it, even with its own claims
      const intoInvisible = await publish('globexWriter', 'io.pub/globex-writes', '1.0.0', { org: 'globex' });
      expect(intoInvisible.status).toBe(403);
      expect(intoInvisible.body.error).toMatch(/managed source/);
      expect(await status('globexWriter', 'DELETE', '/v1/entries/server/io.pub%2Fglobex-only/versions/1.0.0')).toBe(204);
    });
  });

  describe('consumer listings follow entry visibility', () => {
    it('lists servers by the claims of each caller, with shadowing decided among visible entries', async () => {
      expect(await serverNames('reader', 'everyone')).toEqual(['com.acme/shared@1.0.0', 'com.acme/shared@1.1.0', 'com.acme/tools@1.0.0', 'com.ex/org@1.0.0']);
      expect(await serverNames('dataDev', 'everyone')).toEqual(['com.acme/shared@2.0.0', 'com.acme/tools@1.0.0', 'com.acme/warehouse@1.0.0', 'com.ex/org@1.0.0']);
      expect(await serverNames('globexWriter', 'everyone')).toEqual(['com.acme/shared@9.0.0', 'com.globex/widgets@1.0.0']);
      expect(await serverNames('readerTeamT', 'everyone')).toEqual(['com.acme/shared@1.0.0', 'com.acme/shared@1.1.0', 'com.acme/tools@1.0.0', 'com.ex/org-team@1.0.0', 'com.ex/org@1.0.0']);
      expect(await serverNames('root', 'everyone')).toEqual([
        'com.acme/shared@2.0.0',
        'com.acme/tools@1.0.0',
        'com.acme/warehouse@1.0.0',
        'com.ex/org-team@1.0.0',
        'com.ex/org@1.0.0',
        'com.globex/widgets@1.0.0',
        'com.none/hidden@1.0.0',
      ]);
    });

    it('lists skills and plugins by visibility too', async () => {
      const packages = async (persona: Persona, kind: 'skills' | 'plugins') => {
        const response = await call<PackageList>(persona, 'GET', `/registry/everyone/v0.1/x/dev.toolyard/${kind}`);
        expect(response.status).toBe(200);
        return (response.body[kind] ?? []).map((record) => `${record.namespace}/${record.name}`).filter((name) => !name.startsWith('io.pub/')).sort();
      };
      expect(await packages('reader', 'skills')).toEqual(['com.acme/pdf']);
      expect(await packages('dataDev', 'skills')).toEqual(['com.acme/pdf', 'com.acme/sql']);
      expect(await packages('globexWriter', 'skills')).toEqual(['com.globex/slides']);
      expect(await packages('root', 'skills')).toEqual(['com.acme/pdf', 'com.acme/sql', 'com.globex/slides', 'com.none/secret']);
      expect(await packages('reader', 'plugins')).toEqual(['com.acme/review']);
      expect(await packages('globexWriter', 'plugins')).toEqual(['com.globex/lint']);
    });

    it('answers 404 for an invisible entry on every consumer read', async () => {
      for (const path of [
        '/servers/com.globex%2Fwidgets/versions',
        '/servers/com.globex%2Fwidgets/versions/latest',
        '/servers/com.globex%2Fwidgets/versions/1.0.0',
        '/servers/com.none%2Fhidden/versions/1.0.0',
        '/x/dev.toolyard/skills/com.globex/slides',
        '/x/dev.toolyard/skills/com.globex/slides/versions',
        '/x/dev.toolyard/skills/com.none/secret/versions/1.0.0',
        '/x/dev.toolyard/plugins/com.globex/lint',
      ]) {
        expect(await status('reader', 'GET', `/registry/everyone/v0.1${path}`), path).toBe(404);
        expect(await status('root', 'GET', `/registry/everyone/v0.1${path}`), path).toBe(200);
      }
    });

    it('shadowing: when the first source’s copy is invisible the caller gets the next visible source’s versions', async () => {
      // acme lists acme-data (team data or ml) before acme-tools (org acme)
      expect(await versionsOf('dataDev', 'acme', 'com.acme/shared')).toEqual(['2.0.0']);
      expect(await versionsOf('mlDev', 'acme', 'com.acme/shared')).toEqual(['2.0.0']);
      expect(await versionsOf('webDataDev', 'acme', 'com.acme/shared')).toEqual(['2.0.0']);
      expect(await versionsOf('reader', 'acme', 'com.acme/shared')).toEqual(['1.0.0', '1.1.0']);
      expect(await versionsOf('webDev', 'acme', 'com.acme/shared')).toEqual(['1.0.0', '1.1.0']);
      expect(await versionsOf('root', 'acme', 'com.acme/shared')).toEqual(['2.0.0']);
      // and so is latest, and a shadowed version is not served at all
      const latest = async (persona: Persona) => (await call<{ server: { version: string } }>(persona, 'GET', '/registry/acme/v0.1/servers/com.acme%2Fshared/versions/latest')).body.server.version;
      expect(await latest('reader')).toBe('1.1.0');
      expect(await latest('dataDev')).toBe('2.0.0');
      expect(await status('dataDev', 'GET', '/registry/acme/v0.1/servers/com.acme%2Fshared/versions/1.1.0')).toBe(404);
      expect(await status('reader', 'GET', '/registry/acme/v0.1/servers/com.acme%2Fshared/versions/2.0.0')).toBe(404);
      // in everyone, a globex caller sees neither acme copy and gets the globex one
      expect(await versionsOf('globexWriter', 'everyone', 'com.acme/shared')).toEqual(['9.0.0']);
      const latestNames = (await call<ServerList>('reader', 'GET', '/registry/acme/v0.1/servers?version=latest')).body.servers.map((r) => `${r.server.name}@${r.server.version}`);
      expect(latestNames).toContain('com.acme/shared@1.1.0');
    });

    it('synced entries carry the claims of their source', async () => {
      const { body } = await call<{ entries: { name: string; claims: unknown }[] }>('admin', 'GET', '/v1/sources/acme-tools/entries');
      expect(body.entries.map((entry) => entry.name).sort()).toEqual(['com.acme/pdf', 'com.acme/review', 'com.acme/shared', 'com.acme/tools']);
      for (const entry of body.entries) expect(entry.claims).toEqual({ org: 'acme' });
      const data = await call<{ entries: { claims: unknown }[] }>('adminData', 'GET', '/v1/sources/acme-data/entries');
      for (const entry of data.body.entries) expect(entry.claims).toEqual({ org: 'acme', team: ['data', 'ml'] });
    });
  });

  describe('publishing', () => {
    it('requires non-empty claims (400), from every caller', async () => {
      for (const persona of ['writer', 'root'] as Persona[]) {
        const missing = await publish(persona, 'io.pub/unclaimed', '1.0.0');
        expect(missing.status).toBe(400);
        expect(missing.body.error).toMatch(/claims/);
        expect((await publish(persona, 'io.pub/unclaimed', '1.0.0', {})).status).toBe(400);
      }
    });

    it('refuses claims broader than the publisher holds (403)', async () => {
      expect((await publish('writer', 'io.pub/broad', '1.0.0', { org: ['acme', 'globex'] })).status).toBe(403);
      expect((await publish('writer', 'io.pub/broad', '1.0.0', { org: 'acme', team: 'platform' })).status).toBe(403);
      expect((await publish('writer', 'io.pub/broad', '1.0.0', { org: 'globex' })).status).toBe(403);
      expect((await publish('platformDev', 'io.pub/broad', '1.0.0', { org: 'acme', team: ['web', 'platform', 'data'] })).status).toBe(403);
      expect((await publish('platformDev', 'io.pub/broad', '1.0.0', { org: 'acme', team: ['web', 'platform'] })).status).toBe(201);
      expect((await publish('dataDev', 'io.pub/data-only', '1.0.0', { org: 'acme', team: 'data' })).status).toBe(201);
    });

    it('requires every later version to carry the claims of the first (409), after the subset rule (403)', async () => {
      expect((await publish('writer', 'io.pub/stable', '1.0.0', { org: 'acme' })).status).toBe(201);
      const mismatched = await publish('writer', 'io.pub/stable', '1.1.0', { org: 'acme', role: 'writer' });
      expect(mismatched.status).toBe(409);
      expect(mismatched.body.error).toMatch(/claims/);
      expect((await publish('writer', 'io.pub/stable', '1.1.0', { org: 'globex' })).status).toBe(403);
      expect((await publish('writer', 'io.pub/stable', '1.1.0', { org: 'acme' })).status).toBe(201);
    });

    it('serves published entries only to callers who satisfy their claims', async () => {
      expect(await versionsOf('reader', 'acme', 'io.pub/stable')).toEqual(['1.0.0', '1.1.0']);
      expect(await versionsOf('globexWriter', 'everyone', 'io.pub/stable')).toBe(404);
      expect(await versionsOf('dataDev', 'acme', 'io.pub/data-only')).toEqual(['1.0.0']);
      expect(await versionsOf('reader', 'acme', 'io.pub/data-only')).toBe(404);
      expect(await versionsOf('webDev', 'acme', 'io.pub/broad')).toEqual(['1.0.0']);
      expect(await versionsOf('dataDev', 'acme', 'io.pub/broad')).toBe(404);
    });
  });

  describe('entry claims', () => {
    it('reads, narrows and clears the claims of a managed entry', async () => {
      expect((await publish('writer', 'io.pub/claimed', '1.0.0', { org: 'acme' })).status).toBe(201);
      expect((await call('writer', 'GET', '/v1/entries/server/io.pub%2Fclaimed/claims')).body).toEqual({ claims: { org: 'acme' } });
      // narrowing needs the new claims to be a subset of the caller's
      expect(await status('writer', 'PUT', '/v1/entries/server/io.pub%2Fclaimed/claims', { claims: { org: 'acme', team: 'data' } })).toBe(403);
      expect(await status('dataDev', 'PUT', '/v1/entries/server/io.pub%2Fclaimed/claims', { claims: { org: 'acme', team: 'data' } })).toBe(204);
      expect(await status('writer', 'GET', '/v1/entries/server/io.pub%2Fclaimed/claims')).toBe(403);
      expect(await versionsOf('reader', 'acme', 'io.pub/claimed')).toBe(404);
      expect(await versionsOf('dataDev', 'acme', 'io.pub/claimed')).toEqual(['1.0.0']);
      // a later version must carry the claims as they are now
      expect((await publish('dataDev', 'io.pub/claimed', '1.1.0', { org: 'acme' })).status).toBe(409);
      expect((await publish('dataDev', 'io.pub/claimed', '1.1.0', { org: 'acme', team: 'data' })).status).toBe(201);
      // {claims: {}} clears them: the entry is then the superAdmin's alone
      expect(await status('dataDev', 'PUT', '/v1/entries/server/io.pub%2Fclaimed/claims', { claims: {} })).toBe(204);
      expect(await status('dataDev', 'GET', '/v1/entries/server/io.pub%2Fclaimed/claims')).toBe(403);
      expect(await versionsOf('dataDev', 'acme', 'io.pub/claimed')).toBe(404);
      expect((await call('root', 'GET', '/v1/entries/server/io.pub%2Fclaimed/claims')).body).toEqual({ claims: {} });
      expect(await versionsOf('root', 'acme', 'io.pub/claimed')).toEqual(['1.0.0', '1.1.0']);
    });

    it('applies to managed entries only: a synced entry has no claims endpoint (404)', async () => {
      expect(await status('root', 'GET', '/v1/entries/server/com.acme%2Ftools/claims')).toBe(404);
      expect(await status('root', 'PUT', '/v1/entries/server/com.acme%2Ftools/claims', { claims: { org: 'acme' } })).toBe(404);
    });

    it('manages skills the same way', async () => {
      expect(await status('writer', 'POST', '/v1/entries', { skill: skill('io.pub', 'notes'), claims: { org: 'acme' } })).toBe(201);
      expect((await call('writer', 'GET', '/v1/entries/skill/io.pub%2Fnotes/claims')).body).toEqual({ claims: { org: 'acme' } });
      expect(await status('globexWriter', 'GET', '/v1/entries/skill/io.pub%2Fnotes/claims')).toBe(403);
      expect(await status('reader', 'GET', '/registry/acme/v0.1/x/dev.toolyard/skills/io.pub/notes')).toBe(200);
      expect(await status('globexWriter', 'GET', '/registry/everyone/v0.1/x/dev.toolyard/skills/io.pub/notes')).toBe(404);
    });
  });

  describe('superAdmin bypass', () => {
    it('sees every source and registry, unlabeled ones included', async () => {
      const sources = (await call<{ sources: { name: string }[] }>('root', 'GET', '/v1/sources')).body.sources.map((s) => s.name);
      expect(sources).toEqual(expect.arrayContaining(['unlabeled', 'api-unlabeled', 'acme-data', 'globex', 'ex-org-team', 'internal']));
      const registries = (await call<{ registries: { name: string }[] }>('root', 'GET', '/v1/registries')).body.registries.map((r) => r.name);
      expect(registries).toEqual(expect.arrayContaining(['nolabel', 'api-unlabeled', 'globex', 'ex-org-team']));
      expect(await status('root', 'GET', '/v1/registries/nolabel/entries')).toBe(200);
      expect(await status('root', 'GET', '/v1/sources/unlabeled/entries')).toBe(200);
    });

    it('gives resources claims it does not hold, publishes without the subset rule and deletes anything', async () => {
      expect(await status('root', 'PUT', '/v1/sources/root-made', fileSource({ org: 'initech', team: ['x', 'y'] }, 'com.initech/only'))).toBe(201);
      expect(await status('root', 'PUT', '/v1/registries/root-made', { sources: ['root-made'], claims: { org: 'initech' } })).toBe(201);
      await registry.sync();
      expect(await status('initech', 'GET', '/registry/root-made/v0.1/servers')).toBe(200);
      expect(await versionsOf('initech', 'root-made', 'com.initech/only')).toBe(404);
      expect(await versionsOf('root', 'root-made', 'com.initech/only')).toEqual(['1.0.0']);
      expect((await publish('root', 'io.pub/root-only', '1.0.0', { org: 'secret' })).status).toBe(201);
      expect(await status('root', 'GET', '/v1/entries/server/io.pub%2Froot-only/claims')).toBe(200);
      expect(await status('writer', 'GET', '/v1/entries/server/io.pub%2Froot-only/claims')).toBe(403);
      expect(await status('root', 'DELETE', '/v1/entries/server/io.pub%2Froot-only/versions/1.0.0')).toBe(204);
      for (const name of ['root-made', 'api-unlabeled', 'api-globex']) expect(await status('root', 'DELETE', `/v1/registries/${name}`)).toBe(204);
      for (const name of ['root-made', 'api-unlabeled', 'api-globex']) expect(await status('root', 'DELETE', `/v1/sources/${name}`)).toBe(204);
    });
  });

  describe('invisible entries and sources in admin listings and source claim changes', () => {
    it('hides from /v1/registries/{name}/entries the entries the caller cannot see', async () => {
      const { body } = await call<{ entries: { name: string }[] }>('admin', 'GET', '/v1/registries/acme/entries');
      expect(body.entries.map((entry) => entry.name)).not.toContain('com.none/hidden');
      expect(body.entries.length).toBeGreaterThan(0);
      expect(body.entries.every((entry) => !('claims' in entry))).toBe(true);
      const root = await call<{ entries: { name: string }[] }>('root', 'GET', '/v1/registries/acme/entries');
      expect(root.body.entries.map((entry) => entry.name)).toContain('com.none/hidden');
    });

    it('treats a source the caller cannot see as unknown when it builds a registry', async () => {
      const response = await call<{ error: string }>('admin', 'PUT', '/v1/registries/over-hidden', { sources: ['acme-tools', 'globex'], claims: { org: 'acme' } });
      expect(response.status).toBe(400);
      expect(response.body.error).toContain('no source named "globex"');
    });

    it('applies new source claims to its entries at once, not at the next sync', async () => {
      expect(await versionsOf('reader', 'api-acme', 'com.api/item')).toEqual(['1.0.0']);
      try {
        expect(await status('adminTeamT', 'PUT', '/v1/sources/api-acme', fileSource({ org: 'acme', team: 't' }))).toBe(200);
        expect(await versionsOf('reader', 'api-acme', 'com.api/item')).toBe(404);
      } finally {
        await registry.sync();
        expect(await versionsOf('reader', 'api-acme', 'com.api/item')).toBe(404);
        expect(await status('adminTeamT', 'PUT', '/v1/sources/api-acme', fileSource({ org: 'acme' }))).toBe(200);
        await registry.sync();
      }
    });
  });

  describe('admin scoping of writes', () => {
    it('creates with a subset, updates only what the caller sees and with a subset, deletes only what it sees', async () => {
      expect(await status('admin', 'PUT', '/v1/sources/scoped', fileSource({ org: 'globex' }))).toBe(403);
      expect(await status('admin', 'PUT', '/v1/sources/scoped', fileSource({ org: 'acme', team: 't' }))).toBe(403);
      expect(await status('adminTeamT', 'PUT', '/v1/sources/scoped', fileSource({ org: 'acme', team: 't' }))).toBe(201);
      // admin cannot see {org: acme, team: t}: for it the source does not exist
      expect(await status('admin', 'PUT', '/v1/sources/scoped', fileSource({ org: 'acme' }))).toBe(404);
      expect(await status('admin', 'DELETE', '/v1/sources/scoped')).toBe(404);
      expect(await status('adminTeamT', 'PUT', '/v1/sources/scoped', fileSource({ org: 'globex' }))).toBe(403);
      expect(await status('adminTeamT', 'PUT', '/v1/sources/scoped', fileSource({ org: 'acme' }))).toBe(200);
      expect(await status('admin', 'GET', '/v1/sources/scoped')).toBe(200);
      expect(await status('admin', 'PUT', '/v1/registries/scoped', { sources: ['scoped'], claims: { org: 'acme', team: 't' } })).toBe(403);
      expect(await status('adminTeamT', 'PUT', '/v1/registries/scoped', { sources: ['scoped'], claims: { org: 'acme', team: 't' } })).toBe(201);
      expect(await status('admin', 'GET', '/v1/registries/scoped')).toBe(404);
      expect(await status('admin', 'PUT', '/v1/registries/scoped', { sources: ['scoped'], claims: { org: 'acme' } })).toBe(404);
      expect(await status('admin', 'DELETE', '/v1/registries/scoped')).toBe(404);
      expect(await status('adminTeamT', 'DELETE', '/v1/registries/scoped')).toBe(204);
      expect(await status('admin', 'DELETE', '/v1/sources/scoped')).toBe(204);
      // config-defined resources stay read-only whoever asks
      const readOnly = await call('admin', 'PUT', '/v1/sources/acme-tools', fileSource({ org: 'acme' }));
      expect(readOnly.status).toBe(403);
      expect(readOnly.body.error).toMatch(/configuration file/);
    });
  });
});
