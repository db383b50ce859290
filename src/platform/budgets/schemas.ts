import { Type, type Static } from '@sinclair/typebox';

/* The budget collection (PLATFORM-API Part 3 §3, §4). */

/** Checked by the service with parseMoney, so a number, a sign or an exponent is a 400 naming the field. */
const LimitInput = (period: string) =>
  Type.Unsafe<string | null>({ description: `USD per UTC ${period}: a decimal string such as "12.50" (up to 12 digits, a point and up to 12 decimals), or null: no ${period} budget` });
const Limit = (period: string) => Type.Union([Type.String(), Type.Null()], { description: `USD per UTC ${period}; null: no ${period} budget` });

const limitsInput = { day_limit_usd: Type.Optional(LimitInput('day')), month_limit_usd: Type.Optional(LimitInput('month')) };
const limits = { day_limit_usd: Limit('day'), month_limit_usd: Limit('month') };

const UserSubject = Type.String({ minLength: 1, maxLength: 255, description: "the user's OIDC subject (the token's sub); the user need not exist yet" });
const GroupSubject = Type.String({ format: 'uuid', description: 'the id of a directory group' });

/** A user or group budget write: absent or null is no budget for that period. */
export const LimitsBodySchema = Type.Object(limitsInput, { additionalProperties: false, description: 'absent or null: no budget for that period; both: the budget is removed' });

export const CollectionBodySchema = Type.Object(
  {
    default_user: Type.Object(limitsInput, { additionalProperties: false, description: 'the budget of every user without an own limit for the period' }),
    users: Type.Array(Type.Object({ subject_id: UserSubject, ...limitsInput }, { additionalProperties: false }), { description: 'items with both limits null are dropped' }),
    groups: Type.Array(Type.Object({ subject_id: GroupSubject, ...limitsInput }, { additionalProperties: false }), { description: 'items with both limits null are dropped' }),
  },
  { additionalProperties: false, description: 'the complete budget collection; it replaces the current one' },
);

export const BudgetCollectionSchema = Type.Object(
  {
    default_user: Type.Object(limits, { additionalProperties: false }),
    users: Type.Array(Type.Object({ subject_id: Type.String(), ...limits }, { additionalProperties: false }), { description: 'sorted by subject_id' }),
    groups: Type.Array(Type.Object({ subject_id: Type.String({ format: 'uuid' }), ...limits }, { additionalProperties: false }), { description: 'sorted by subject_id' }),
  },
  { $id: 'BudgetCollection', additionalProperties: false },
);

export const UserParamsSchema = Type.Object({ id: UserSubject });
export const GroupParamsSchema = Type.Object({ id: Type.String({ description: 'the id of a directory group' }) });

export type LimitsBody = Static<typeof LimitsBodySchema>;
export type CollectionBody = Static<typeof CollectionBodySchema>;
export type BudgetCollection = Static<typeof BudgetCollectionSchema>;
