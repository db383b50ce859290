import { describe, expect, it } from 'vitest';
import { buildTextIndex } from './text-index.js';

describe('text index', () => {
  const texts = ['io.github.acme/weather', 'com.example/maps', 'straße-İstanbul'.toLowerCase(), 'emoji 😀 server', 'weather weather'];
  const index = buildTextIndex(texts);

  it('names every text that contains a needle, each once and in order', () => {
    for (const needle of ['weather', 'ather', '.ex', 'straße', 'i̇st', '😀 s', 'er']) {
      const found = index.candidates(needle);
      const containing = texts.flatMap((text, ordinal) => (text.includes(needle) ? [ordinal] : []));
      if (found === undefined) expect(needle.length).toBeLessThan(3);
      else expect([...found].filter((ordinal) => (texts[ordinal] ?? '').includes(needle))).toEqual(containing);
    }
  });

  it('answers nothing for a gram no text has, and leaves needles under three code units to a scan', () => {
    expect(index.candidates('xyz')).toHaveLength(0);
    expect(index.candidates('we')).toBeUndefined();
  });
});
