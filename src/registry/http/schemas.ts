import { Type, type Static } from '@sinclair/typebox';

/** Free-form JSON objects of the MCP Registry formats, documented but not constrained. */
export const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const ListMetadataSchema = Type.Object({ count: Type.Integer(), nextCursor: Type.Optional(Type.String({ description: 'pass as cursor for the next page' })) });

export const ADMIN_PAGE_LIMIT = { default: 100, maximum: 500 };

export const AdminListQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'metadata.nextCursor of the previous page' })),
  limit: Type.Integer({
    minimum: 1,
    maximum: ADMIN_PAGE_LIMIT.maximum,
    default: ADMIN_PAGE_LIMIT.default,
    description: `page size, 1 to ${ADMIN_PAGE_LIMIT.maximum}; a page holds fewer items when some are hidden from the caller, so follow metadata.nextCursor until it is absent`,
  }),
});

export type ListQuery = Static<typeof AdminListQuerySchema>;

export const NameParams = Type.Object({ name: Type.String() });
