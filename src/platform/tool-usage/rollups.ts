import { alignDown, COUNT_WIDTHS, USER_WIDTHS } from './windows.js';

/* What a chunk of records adds to each roll-up, counted here rather than by the database: the embedded engine spent about ten times as long grouping the same rows. */

/** The columns of a record a fold reads, in chain order. */
export interface FoldedRecord {
  sequence: number;
  occurred_at: Date;
  environment: string;
  connector_id: string;
  connector_name: string;
  tool_name: string;
  decision: string;
  user_id: string;
  groups: { id: string; name: string }[];
}

interface Bucket {
  width: number;
  /** ISO 8601, as the statement reads it. */
  bucket_start: string;
  environment: string;
  count: number;
}

/** The roll-up rows a chunk adds, one per key; a name is the one of the chunk's latest record with that key. */
export interface RollUps {
  counts: (Bucket & { connector_id: string; tool_name: string; decision: string; connector_name: string })[];
  series: (Bucket & { dimension: 'none' | 'decision' | 'connector' | 'tool'; key: string })[];
  users: (Bucket & { user_id: string })[];
  groups: (Bucket & { connector_id: string; group_id: string; group_name: string })[];
}

/** Adds one to the row under `key`, or creates it with `row`; `rename` gives a found row the name of the later record. */
function tally<Row extends Bucket>(rows: Map<string, Row>, key: string, row: () => Row, rename?: (found: Row) => void): void {
  const found = rows.get(key);
  if (!found) {
    rows.set(key, row());
    return;
  }
  found.count += 1;
  rename?.(found);
}

const USER_WIDTH_SET = new Set<number>(USER_WIDTHS);

export function rollUp(records: readonly FoldedRecord[]): RollUps {
  const counts = new Map<string, RollUps['counts'][number]>();
  const series = new Map<string, RollUps['series'][number]>();
  const users = new Map<string, RollUps['users'][number]>();
  const groups = new Map<string, RollUps['groups'][number]>();
  // a chunk's records share a few buckets: each start is formatted once
  const starts = new Map<number, string>();
  const startOf = (at: number, width: number) => {
    const start = alignDown(at, width);
    let iso = starts.get(start);
    if (iso === undefined) {
      iso = new Date(start).toISOString();
      starts.set(start, iso);
    }
    return iso;
  };
  const ordered = [...records].sort((a, b) => a.sequence - b.sequence);
  for (const record of ordered) {
    const { environment, connector_id, connector_name, tool_name, decision, user_id } = record;
    const at = record.occurred_at.getTime();
    for (const width of COUNT_WIDTHS) {
      const bucket_start = startOf(at, width);
      const base = `${String(width)}\u0000${bucket_start}\u0000${environment}`;
      tally(counts, `${base}\u0000${connector_id}\u0000${tool_name}\u0000${decision}`, () => ({ width, bucket_start, environment, connector_id, tool_name, decision, connector_name, count: 1 }), (row) => {
        row.connector_name = connector_name;
      });
      const dimensions = [
        ['none', ''],
        ['decision', decision],
        ['connector', connector_id],
        ['tool', `${connector_id}/${tool_name}`],
      ] as const;
      for (const [dimension, key] of dimensions) {
        tally(series, `${base}\u0000${dimension}\u0000${key}`, () => ({ width, bucket_start, environment, dimension, key, count: 1 }));
      }
      if (USER_WIDTH_SET.has(width)) {
        tally(users, `${base}\u0000${user_id}`, () => ({ width, bucket_start, environment, user_id, count: 1 }));
      }
      for (const group of record.groups) {
        tally(groups, `${base}\u0000${connector_id}\u0000${group.id}`, () => ({ width, bucket_start, environment, connector_id, group_id: group.id, group_name: group.name, count: 1 }), (row) => {
          row.group_name = group.name;
        });
      }
    }
  }
  return { counts: [...counts.values()], series: [...series.values()], users: [...users.values()], groups: [...groups.values()] };
}
