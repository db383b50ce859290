/** Substrings shorter than this have no grams to look up: callers scan for them. */
export const GRAM_LENGTH = 3;

/**
 * A trigram index over texts that are already lower-cased, by ordinal. Grams are UTF-16 code units,
 * exactly what `String.prototype.includes` compares, so a text that contains a needle always holds
 * every gram of it, whatever the script or case mapping. Posting lists sit in one typed array (a
 * map from gram to slot, and slot offsets), which keeps 100,000 names to a few megabytes.
 */
export interface TextIndex {
  readonly size: number;
  /**
   * Ordinals, ascending, whose text holds every gram of the needle (a superset of the texts that
   * contain it); undefined when the needle is shorter than GRAM_LENGTH.
   */
  candidates(needle: string): Uint32Array | undefined;
}

const EMPTY = new Uint32Array(0);

function gramAt(text: string, at: number): number {
  return (text.charCodeAt(at) * 65_536 + text.charCodeAt(at + 1)) * 65_536 + text.charCodeAt(at + 2);
}

/** Posting lists by gram, packed into one array: a map from gram to slot, and slot offsets. */
function pack(texts: readonly string[]): { slots: Map<number, number>; offsets: Uint32Array; postings: Uint32Array } {
  const lists = new Map<number, number[]>();
  let total = 0;
  texts.forEach((text, ordinal) => {
    for (let at = 0; at + GRAM_LENGTH <= text.length; at++) {
      const gram = gramAt(text, at);
      const list = lists.get(gram);
      // ordinals arrive in order, so a gram seen twice in one text is the list's last element
      if (list === undefined) lists.set(gram, [ordinal]);
      else if (list[list.length - 1] !== ordinal) list.push(ordinal);
      else continue;
      total++;
    }
  });
  const slots = new Map<number, number>();
  const offsets = new Uint32Array(lists.size + 1);
  const postings = new Uint32Array(total);
  let slot = 0;
  for (const [gram, list] of lists) {
    slots.set(gram, slot);
    postings.set(list, offsets[slot]);
    offsets[slot + 1] = (offsets[slot] ?? 0) + list.length;
    slot++;
  }
  return { slots, offsets, postings };
}

/** `texts[ordinal]` is the lower-cased text of that ordinal; the index keeps no reference to it. */
export function buildTextIndex(texts: readonly string[]): TextIndex {
  const { slots, offsets, postings } = pack(texts);
  return {
    size: texts.length,
    candidates(needle) {
      if (needle.length < GRAM_LENGTH) return undefined;
      // the rarest gram's list is the shortest walk; the caller checks each candidate for the whole needle
      let best: Uint32Array | undefined;
      for (let at = 0; at + GRAM_LENGTH <= needle.length; at++) {
        const found = slots.get(gramAt(needle, at));
        if (found === undefined) return EMPTY;
        const start = offsets[found] ?? 0;
        const end = offsets[found + 1] ?? 0;
        if (best === undefined || end - start < best.length) best = postings.subarray(start, end);
      }
      return best;
    },
  };
}
