import { createHash } from 'node:crypto';
import { formatMoney } from '../money.js';
import type { BudgetCollection } from './schemas.js';
import type { LimitRow } from './store.js';

/** The collection's ETag: it changes with every budget write. */
export const collectionEtag = (version: string): string => `"${createHash('sha256').update(`budgets:${version}`).digest('hex').slice(0, 32)}"`;

const money = (value: string | null) => (value === null ? null : formatMoney(value));
const bySubject = (a: { subject_id: string }, b: { subject_id: string }) => (a.subject_id < b.subject_id ? -1 : a.subject_id > b.subject_id ? 1 : 0);

export function presentCollection(rows: readonly LimitRow[]): BudgetCollection {
  const item = (row: LimitRow) => ({ subject_id: row.subject_id, day_limit_usd: money(row.day_limit_usd), month_limit_usd: money(row.month_limit_usd) });
  const fallback = rows.find((row) => row.scope === 'default');
  return {
    default_user: { day_limit_usd: money(fallback?.day_limit_usd ?? null), month_limit_usd: money(fallback?.month_limit_usd ?? null) },
    users: rows.filter((row) => row.scope === 'user').map(item).sort(bySubject),
    groups: rows.filter((row) => row.scope === 'group').map(item).sort(bySubject),
  };
}
