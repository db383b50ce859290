import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // the budget collection: scope 'default' (subject '') is the organisation default for users
  await sql`
    create table budget_limits (
      scope text not null check (scope in ('default', 'user', 'group')),
      subject_id text not null,
      day_limit_usd numeric,
      month_limit_usd numeric,
      primary key (scope, subject_id)
    )`.execute(db);
  // one row: the lock budget writes take turns on, and the collection's version (its ETag)
  await sql`create table budget_settings (id integer primary key check (id = 1), version bigint not null)`.execute(db);
  await sql`insert into budget_settings (id, version) values (1, 0)`.execute(db);

  // a period is a key (ordinal = days or months since the epoch); a new period is a new row, nothing resets
  await sql`
    create table budget_cells (
      scope text not null check (scope in ('user', 'group')),
      subject_id text not null,
      period text not null check (period in ('day', 'month')),
      ordinal integer not null,
      period_start timestamptz not null,
      period_end timestamptz not null,
      used_usd numeric not null default 0,
      reserved_usd numeric not null default 0,
      primary key (scope, subject_id, period, ordinal)
    )`.execute(db);
  await sql`create index budget_cells_by_period on budget_cells (period, ordinal, scope, subject_id)`.execute(db);

  // what an admitted request holds until it settles; a crashed replica's are reclaimed after expires_at
  await sql`
    create table budget_reservations (
      event_id uuid primary key,
      cells jsonb not null,
      amount_usd numeric not null,
      admitted_at timestamptz not null,
      expires_at timestamptz not null,
      event jsonb not null
    )`.execute(db);
  await sql`create index budget_reservations_by_expiry on budget_reservations (expires_at)`.execute(db);

  // settled spend per cell and (model, provider, auth subject): breakdowns and own shares read these, not the charges
  await sql`
    create table budget_cell_spend (
      scope text not null,
      subject_id text not null,
      period text not null,
      ordinal integer not null,
      model text not null,
      provider text not null,
      auth_subject text not null,
      used_usd numeric not null,
      primary key (scope, subject_id, period, ordinal, model, provider, auth_subject)
    )`.execute(db);
  await sql`create index budget_cell_spend_by_contributor on budget_cell_spend (auth_subject, period, ordinal)`.execute(db);
}
