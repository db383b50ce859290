import { buildTextIndex, GRAM_LENGTH, type TextIndex } from '../../core/text-index.js';
import type { EntryType } from '../tables.js';
import type { EntryView } from './entry-view.js';

/**
 * What one source's entries of one type are searched by: servers by name, skills and plugins by name
 * and description (the `nameLower` and `textLower` the consumer reads compare against).
 */
export interface SourceSearchIndex {
  /** The source's names of the type, in byte-wise order (the order of the served lists). */
  names: string[];
  /** Per name, every distinct searched text of its versions, joined: what a served version may hold. */
  texts: string[];
  grams: TextIndex;
}

export const searchedText = (type: EntryType, entry: EntryView): string => (type === 'server' ? entry.nameLower : entry.textLower);

function indexOf(type: EntryType, groups: [string, EntryView[]][]): SourceSearchIndex {
  groups.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const texts = groups.map(([, versions]) => [...new Set(versions.map((entry) => searchedText(type, entry)))].join('\n'));
  return { names: groups.map(([name]) => name), texts, grams: buildTextIndex(texts) };
}

/** Built once per loaded source, so a registry view (one per caller's claims) costs no indexing. */
export function indexSource(versions: Map<string, EntryView[]>): Record<EntryType, SourceSearchIndex> {
  const groups: Record<EntryType, [string, EntryView[]][]> = { server: [], skill: [], plugin: [] };
  for (const list of versions.values()) {
    const first = list[0];
    if (first) groups[first.entryType].push([first.name, list]);
  }
  return { server: indexOf('server', groups.server), skill: indexOf('skill', groups.skill), plugin: indexOf('plugin', groups.plugin) };
}

interface Walk {
  source: SourceSearchIndex;
  ordinals: Uint32Array;
  at: number;
}

/** First position in `ordinals` whose name is at or after `from`. */
function seek(source: SourceSearchIndex, ordinals: Uint32Array, from: string): number {
  let low = 0;
  let high = ordinals.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((source.names[ordinals[middle] ?? 0] ?? '') < from) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Whether the index can answer a search for `needle`; shorter needles are scanned for. */
export const indexable = (needle: string): boolean => needle.length >= GRAM_LENGTH;

/**
 * The names at or after `from`, in byte-wise order and each once, whose text in any of the sources
 * contains `needle` (lower-cased and indexable).
 */
export function matchingNames(sources: SourceSearchIndex[], needle: string, from: string): Iterable<string> {
  const walks: Walk[] = [];
  for (const source of sources) {
    const ordinals = source.grams.candidates(needle) ?? new Uint32Array(0);
    const at = from === '' ? 0 : seek(source, ordinals, from);
    if (at < ordinals.length) walks.push({ source, ordinals, at });
  }
  return merged(walks, needle);
}

/** Merges the sources' candidates by name, keeping those whose text holds the whole needle. */
function* merged(walks: Walk[], needle: string): Generator<string, void, undefined> {
  let last: string | undefined;
  while (walks.length > 0) {
    let next = walks[0] as Walk;
    let nextName = next.source.names[next.ordinals[next.at] ?? 0] ?? '';
    for (let index = 1; index < walks.length; index++) {
      const walk = walks[index] as Walk;
      const name = walk.source.names[walk.ordinals[walk.at] ?? 0] ?? '';
      if (name < nextName) [next, nextName] = [walk, name];
    }
    const ordinal = next.ordinals[next.at] ?? 0;
    if (++next.at === next.ordinals.length) walks.splice(walks.indexOf(next), 1);
    if (nextName !== last && (next.source.texts[ordinal] ?? '').includes(needle)) {
      last = nextName;
      yield nextName;
    }
  }
}
