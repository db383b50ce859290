// one function per module: the whole of semver is 48 modules, loaded at every start
import rcompare from 'semver/functions/rcompare.js';
import valid from 'semver/functions/valid.js';

export interface Versioned {
  version: string;
  publishedAt: Date;
}

/**
 * Newest first: semver versions by precedence, above every non-semver version; non-semver versions
 * by publish time; the version string settles the rest so the order is total.
 */
export function compareNewestFirst(a: Versioned, b: Versioned): number {
  const sa = valid(a.version, { loose: true });
  const sb = valid(b.version, { loose: true });
  if (sa && sb) {
    const order = rcompare(sa, sb);
    if (order !== 0) return order;
  } else if (sa) return -1;
  else if (sb) return 1;
  const time = b.publishedAt.getTime() - a.publishedAt.getTime();
  if (time !== 0) return time;
  return a.version < b.version ? 1 : a.version > b.version ? -1 : 0;
}

/** Byte-wise string order, the same in JavaScript and in cursors, independent of locale. */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
