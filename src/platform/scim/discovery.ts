/*
 * What this SCIM service provider supports (RFC 7643 §5–7, RFC 7644 §4): static documents, with the
 * locations made absolute at request time.
 */

export const SCHEMAS = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export const MAX_RESULTS = 1000;

export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [SCHEMAS.serviceProviderConfig],
    documentationUri: `${base.replace(/\/scim\/v2\/[^/]+$/, '')}/api/doc`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      { type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: 'The bearer token configured for this provisioner (bearerTokenFile)', primary: true },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCHEMAS.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'User Account',
      schema: SCHEMAS.user,
      schemaExtensions: [{ schema: SCHEMAS.enterpriseUser, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [SCHEMAS.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'Group',
      schema: SCHEMAS.group,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned?: 'always' | 'never' | 'default' | 'request';
  uniqueness?: 'none' | 'server' | 'global';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

const attribute = (name: string, type: Attribute['type'] = 'string', extra: Partial<Attribute> = {}): Attribute => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const multi = (name: string, subAttributes: Attribute[], extra: Partial<Attribute> = {}) => attribute(name, 'complex', { multiValued: true, subAttributes, ...extra });
const valueTypePrimary = (types: string[] = ['work', 'home', 'other']) => [attribute('value'), attribute('display'), attribute('type', 'string', { canonicalValues: types }), attribute('primary', 'boolean')];

const USER_ATTRIBUTES: Attribute[] = [
  attribute('userName', 'string', { required: true, uniqueness: 'server' }),
  attribute('name', 'complex', {
    subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((name) => attribute(name)),
  }),
  attribute('displayName'),
  attribute('nickName'),
  attribute('profileUrl', 'reference', { referenceTypes: ['external'] }),
  attribute('title'),
  attribute('userType'),
  attribute('preferredLanguage'),
  attribute('locale'),
  attribute('timezone'),
  attribute('active', 'boolean'),
  attribute('password', 'string', { mutability: 'writeOnly', returned: 'never' }),
  multi('emails', valueTypePrimary()),
  multi('phoneNumbers', valueTypePrimary(['work', 'home', 'mobile', 'fax', 'pager', 'other'])),
  multi('ims', valueTypePrimary(['aim', 'gtalk', 'icq', 'xmpp', 'msn', 'skype', 'qq', 'yahoo'])),
  multi('photos', valueTypePrimary(['photo', 'thumbnail'])),
  multi(
    'addresses',
    ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'].map((name) => attribute(name)).concat([attribute('primary', 'boolean')]),
  ),
  multi('groups', [attribute('value', 'string', { mutability: 'readOnly' }), attribute('$ref', 'reference', { mutability: 'readOnly' }), attribute('display', 'string', { mutability: 'readOnly' }), attribute('type', 'string', { mutability: 'readOnly' })], {
    mutability: 'readOnly',
  }),
  multi('entitlements', valueTypePrimary([])),
  multi('roles', valueTypePrimary([])),
  multi('x509Certificates', valueTypePrimary([])),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
  multi('members', [attribute('value', 'string', { mutability: 'immutable' }), attribute('$ref', 'reference', { mutability: 'immutable' }), attribute('display', 'string', { mutability: 'readOnly' }), attribute('type', 'string', { mutability: 'immutable' })]),
];

const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  ...['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((name) => attribute(name)),
  attribute('manager', 'complex', { subAttributes: [attribute('value'), attribute('$ref', 'reference'), attribute('displayName', 'string', { mutability: 'readOnly' })] }),
];

export function schemaDocuments(base: string): Record<string, unknown>[] {
  const document = (id: string, name: string, description: string, attributes: Attribute[]) => ({
    schemas: [SCHEMAS.schema],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  return [
    document(SCHEMAS.user, 'User', 'User Account', USER_ATTRIBUTES),
    document(SCHEMAS.group, 'Group', 'Group', GROUP_ATTRIBUTES),
    document(SCHEMAS.enterpriseUser, 'EnterpriseUser', 'Enterprise User', ENTERPRISE_ATTRIBUTES),
  ];
}
