import { Type, type Static } from '@sinclair/typebox';
import { ref } from '../../core/http/schemas.js';

/* The budget reads (PLATFORM-API Part 3 §4; platform document, budgets operations). */

const Money = (description: string) => Type.String({ description: `USD, a decimal string: ${description}` });
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const Scope = Type.Union([Type.Literal('user'), Type.Literal('group')]);
const Period = Type.Union([Type.Literal('day'), Type.Literal('month')]);

const cellProperties = {
  limit_usd: Money('the limit of the period'),
  on_default: Type.Boolean({ description: "a user cell held to the organisation default (no own limit for the period); false for groups" }),
  ordinal: Type.Integer({ description: 'days since 1970-01-01 (day) or months since 1970-01 (month)' }),
  period: Period,
  period_end: Timestamp('exclusive'),
  period_start: Timestamp('inclusive'),
  remaining_usd: Money('max(0, limit − used − outstanding reservations)'),
  scope: Scope,
  subject_id: Type.String({ description: 'OIDC subject (user) or group id (group)' }),
  used_usd: Money('settled charges of the subject in the period'),
};

export const BudgetCellSchema = Type.Object(cellProperties, { $id: 'BudgetCell', additionalProperties: false });

export const CellListSchema = Type.Object(
  { cells: Type.Array(ref(BudgetCellSchema), { description: 'sorted by scope, subject_id, period' }), next_cursor: Type.Optional(Type.String({ description: 'the next page; absent on the last' })) },
  { additionalProperties: false },
);

export const CellsQuerySchema = Type.Object(
  {
    scope: Type.Optional(Scope),
    subject: Type.Optional(Type.String({ description: 'subject_id prefix (case-sensitive)' })),
    at: Type.Optional(Type.String({ description: 'RFC 3339; the cells of the periods containing it (default now)' })),
    cursor: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'default 50, at most 200 (larger is clamped)' })),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({ used_usd: Money('spent on this value in the period'), value: Type.String() }, { additionalProperties: false });
const Entries = (description: string) => Type.Array(Entry, { description: `${description}; sorted by used_usd (largest first), then value` });

export const BreakdownQuerySchema = Type.Object(
  {
    scope: Scope,
    subject_id: Type.String({ minLength: 1, description: 'OIDC subject (user) or group id (group)' }),
    period: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('month')], { default: 'month' })),
  },
  { additionalProperties: false },
);

export const BreakdownSchema = Type.Object(
  {
    by_model: Entries('by model'),
    by_provider: Entries('by provider'),
    by_user: Entries('by OIDC subject of the caller'),
    period: Period,
    period_end: Timestamp('exclusive'),
    period_start: Timestamp('inclusive'),
    scope: Scope,
    subject_id: Type.String(),
    total_used_usd: Money("the cell's used_usd; each dimension sums to it"),
  },
  { $id: 'BudgetBreakdown', additionalProperties: false },
);

const SlicePeriod = Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('month')], { default: 'month' }));

export const GroupSliceQuerySchema = Type.Object(
  { dimension: Type.Union([Type.Literal('user'), Type.Literal('model')]), period: SlicePeriod },
  { additionalProperties: false },
);

export const UserSliceQuerySchema = Type.Object(
  {
    dimension: Type.Union([Type.Literal('model'), Type.Literal('group')], { description: "model: the user cell of the period; group: every budgeted group the user is in or was charged to within retention" }),
    period: SlicePeriod,
  },
  { additionalProperties: false },
);

const NullableTimestamp = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const SliceSchema = Type.Object(
  {
    dimension: Type.Union([Type.Literal('user'), Type.Literal('model'), Type.Literal('group')]),
    entries: Entries('one per value of the dimension'),
    period: Type.Union([Period, Type.Null()], { description: 'null for the group dimension of a user (no single period)' }),
    period_end: NullableTimestamp('exclusive; null without a single period'),
    period_start: NullableTimestamp('inclusive; null without a single period'),
    scope: Scope,
    subject_id: Type.String(),
    total_used_usd: Money('the sum of the entries'),
  },
  { $id: 'BudgetSlice', additionalProperties: false },
);

const PeriodSummary = Type.Union(
  [
    Type.Object(
      {
        budgets: Type.Integer({ description: 'how many cells of this period apply to me (mine and my groups)' }),
        limit_usd: Money('my own or the default limit'),
        period_end: Timestamp('exclusive'),
        period_start: Timestamp('inclusive'),
        remaining_usd: Money('what my cell has left'),
        used_usd: Money('my settled charges in the period'),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'my own or default cell of the period; null when no personal budget exists for it' },
);

export const OwnSummarySchema = Type.Object(
  {
    budgets: Type.Array(
      Type.Object({ ...cellProperties, my_contribution_usd: Money('my charges in this cell') }, { additionalProperties: false }),
      { description: 'the current cells that apply to me, mine first; group cells show team totals' },
    ),
    day: PeriodSummary,
    month: PeriodSummary,
    subject: Type.String({ description: 'my OIDC subject' }),
  },
  { $id: 'OwnBudgets', additionalProperties: false },
);

export const SubjectParamsSchema = Type.Object({ id: Type.String({ minLength: 1 }) });

export type BudgetCell = Static<typeof BudgetCellSchema>;
export type CellList = Static<typeof CellListSchema>;
export type CellsQuery = Static<typeof CellsQuerySchema>;
export type BreakdownQuery = Static<typeof BreakdownQuerySchema>;
export type Breakdown = Static<typeof BreakdownSchema>;
export type GroupSliceQuery = Static<typeof GroupSliceQuerySchema>;
export type UserSliceQuery = Static<typeof UserSliceQuerySchema>;
export type Slice = Static<typeof SliceSchema>;
export type OwnSummary = Static<typeof OwnSummarySchema>;
