import { readFile } from 'node:fs/promises';
import { applyEdits, modify, parse, printParseErrorCode, type JSONPath, type ParseError } from 'jsonc-parser';
import { ConflictError } from '../../core/errors.js';
import { withFileLock, writeFileAtomic } from '../state/files.js';

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * Edits a JSON file a client reads (settings, marketplaces) in place: only the given paths change,
 * the rest of the user's text (comments, order, spacing) stays as it was. `change` sees the parsed
 * content and returns the edits; `undefined` as a value removes the key.
 */
export async function editJsonFile(file: string, change: (data: Record<string, unknown>) => [JSONPath, unknown][]): Promise<void> {
  await withFileLock(file, async () => {
    const before = await readText(file);
    const errors: ParseError[] = [];
    const data: unknown = before.trim() === '' ? {} : parse(before, errors, { allowTrailingComma: true });
    const first = errors[0];
    if (first !== undefined || typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new ConflictError(`${file} is not a JSON object${first === undefined ? '' : ` (${printParseErrorCode(first.error)} at offset ${first.offset})`}; fix it and try again`);
    }
    let text = before.trim() === '' ? '{}\n' : before;
    for (const [path, value] of change(data as Record<string, unknown>)) text = applyEdits(text, modify(text, path, value, FORMATTING));
    if (text !== before) await writeFileAtomic(file, text, 0o644);
  });
}
