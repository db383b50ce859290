import { labelKeyProblem, labelValueProblem } from './names.js';

/*
 * Kubernetes label selectors (labels.Parse of k8s.io/apimachinery): comma-separated requirements that
 * must all hold. The lexer and parser follow Kubernetes' own, so a selector kubectl accepts is accepted
 * here and means the same.
 */

export type Operator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | '>' | '<';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type Labels = Readonly<Record<string, string>>;

export class SelectorError extends Error {}

type TokenKind = 'id' | 'end' | ',' | '(' | ')' | '!' | '=' | '==' | '!=' | '>' | '<' | 'in' | 'notin';
interface Token {
  kind: TokenKind;
  text: string;
}

const SYMBOLS = ['!=', '==', '!', '=', '(', ')', ',', '>', '<'] as const;
const SPECIAL = new Set(['!', '=', '(', ')', ',', '>', '<']);
const isSpace = (char: string) => char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v';

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < text.length) {
    const char = text[position] ?? '';
    if (isSpace(char)) {
      position += 1;
      continue;
    }
    const symbol = SYMBOLS.find((candidate) => text.startsWith(candidate, position));
    if (symbol) {
      tokens.push({ kind: symbol, text: symbol });
      position += symbol.length;
      continue;
    }
    let end = position;
    while (end < text.length && !isSpace(text[end] ?? '') && !SPECIAL.has(text[end] ?? '')) end += 1;
    const word = text.slice(position, end);
    tokens.push({ kind: word === 'in' || word === 'notin' ? word : 'id', text: word });
    position = end;
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

/** Parses a selector; an empty one selects everything. Throws a SelectorError saying what is wrong. */
export function parseSelector(text: string): Requirement[] {
  const tokens = lex(text);
  let index = 0;
  const peek = () => tokens[index] ?? { kind: 'end' as const, text: '' };
  const next = () => tokens[index++] ?? { kind: 'end' as const, text: '' };
  const requirements: Requirement[] = [];
  if (peek().kind === 'end') return requirements;

  const identifier = (token: Token, what: string): string => {
    // in and notin are plain words wherever a key or value stands
    if (token.kind === 'id' || token.kind === 'in' || token.kind === 'notin') return token.text;
    throw new SelectorError(`found '${token.text || 'the end'}' where ${what} was expected`);
  };

  for (;;) {
    let requirement: Requirement;
    if (peek().kind === '!') {
      next();
      requirement = { key: identifier(next(), 'a key'), operator: '!', values: [] };
    } else {
      const key = identifier(next(), 'a key');
      const operator = next();
      if (operator.kind === 'end' || operator.kind === ',') {
        index -= 1;
        requirement = { key, operator: 'exists', values: [] };
      } else if (operator.kind === 'in' || operator.kind === 'notin') {
        if (next().kind !== '(') throw new SelectorError(`'(' must follow ${operator.kind}`);
        requirement = { key, operator: operator.kind, values: valueList() };
      } else if (operator.kind === '=' || operator.kind === '==' || operator.kind === '!=') {
        const value = peek();
        // `k=` is the empty value
        const text = value.kind === 'end' || value.kind === ',' ? '' : identifier(next(), 'a value');
        requirement = { key, operator: operator.kind, values: [text] };
      } else if (operator.kind === '>' || operator.kind === '<') {
        const value = identifier(next(), 'an integer');
        if (!/^[+-]?\d+$/.test(value)) throw new SelectorError(`'${value}' after ${operator.kind} is not an integer`);
        requirement = { key, operator: operator.kind, values: [value] };
      } else {
        throw new SelectorError(`found '${operator.text}' where an operator (=, ==, !=, in, notin, >, <) or ',' was expected after '${key}'`);
      }
    }
    check(requirement);
    requirements.push(requirement);
    const after = next();
    if (after.kind === 'end') return requirements;
    if (after.kind !== ',') throw new SelectorError(`found '${after.text}' where ',' or the end was expected`);
    if (peek().kind === 'end') throw new SelectorError('a requirement must follow the last comma');
  }

  function valueList(): string[] {
    const values: string[] = [];
    // `in ()` is the set {""}; an empty item between commas is "" too
    let expectValue = true;
    for (;;) {
      const token = next();
      if (token.kind === ')') {
        if (expectValue) values.push('');
        return values;
      }
      if (token.kind === ',') {
        if (expectValue) values.push('');
        expectValue = true;
        continue;
      }
      if (!expectValue) throw new SelectorError(`values in parentheses are separated by commas: found '${token.text}'`);
      values.push(identifier(token, "a value or ')'"));
      expectValue = false;
    }
  }
}

function check(requirement: Requirement): void {
  const keyProblem = labelKeyProblem(requirement.key);
  if (keyProblem) throw new SelectorError(`the key '${requirement.key}' ${keyProblem}`);
  if (requirement.operator === '>' || requirement.operator === '<') return;
  for (const value of requirement.values) {
    const problem = labelValueProblem(value);
    if (problem) throw new SelectorError(`the value '${value}' ${problem}`);
  }
}

const integer = (value: string): number | undefined => (/^[+-]?\d+$/.test(value) ? Number(value) : undefined);

export function matches(requirements: readonly Requirement[], labels: Labels): boolean {
  return requirements.every((requirement) => {
    const has = Object.hasOwn(labels, requirement.key);
    const value = labels[requirement.key] ?? '';
    switch (requirement.operator) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case '=':
      case '==':
      case 'in':
        return has && requirement.values.includes(value);
      case '!=':
      case 'notin':
        return !has || !requirement.values.includes(value);
      case '>':
      case '<': {
        const held = has ? integer(value) : undefined;
        const bound = integer(requirement.values[0] ?? '');
        if (held === undefined || bound === undefined) return false;
        return requirement.operator === '>' ? held > bound : held < bound;
      }
    }
  });
}
