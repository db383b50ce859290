import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const SCANNED = ['src', 'test', 'bench', 'scripts'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'results' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Every `new URL('<relative>', import.meta.url)` of a file, resolved against the file itself. */
function referencedPaths(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/new URL\(\s*'(\.{1,2}\/[^']*)'\s*,\s*import\.meta\.url\s*\)/g)].map((match) => resolve(dirname(file), match[1] ?? ''));
}

describe('the repository carries what its tests, benchmarks and scripts read', () => {
  const files = SCANNED.flatMap((folder) => sourceFiles(join(ROOT, folder)));

  it('resolves every file-relative URL inside the repository', () => {
    const outside = files.flatMap((file) => referencedPaths(file).filter((path) => path !== ROOT && !path.startsWith(ROOT + sep)).map((path) => `${relative(ROOT, file)} -> ${path}`));
    expect(outside).toEqual([]);
  });

  it('names no data folder beside the checkout', () => {
    const self = new URL(import.meta.url).pathname;
    const naming = files.filter((file) => file !== self && /\.\.\/shared\/|shared\/data\//.test(readFileSync(file, 'utf8')));
    expect(naming.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('keeps a README with source and licence beside every fixture data set', () => {
    const fixtures = join(ROOT, 'test/fixtures');
    const dataSets = readdirSync(fixtures).filter((name) => name.endsWith('.json'));
    expect(dataSets.length).toBeGreaterThan(0);
    for (const dataSet of dataSets) {
      const readme = readFileSync(join(fixtures, dataSet.replace(/\.json$/, '.README.md')), 'utf8');
      expect(readme, dataSet).toMatch(/licen[cs]e/i);
      expect(readme, dataSet).toMatch(/source|copied from/i);
    }
  });
});
