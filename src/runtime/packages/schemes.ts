export type ProtocolScheme = 'npx' | 'uvx' | 'go';

const SCHEME = /^(npx|uvx|go):\/\/(.*)$/;

/** `npx://pkg@1` → `{scheme: 'npx', reference: 'pkg@1'}`; anything else is not a protocol-scheme image. */
export function parseProtocolImage(image: string): { scheme: ProtocolScheme; reference: string } | undefined {
  const match = SCHEME.exec(image);
  if (match === null) return undefined;
  return { scheme: match[1] as ProtocolScheme, reference: match[2] ?? '' };
}

export const isProtocolImage = (image: string): boolean => parseProtocolImage(image) !== undefined;

/**
 * Splits `name@version`, where a scoped npm name (`@scope/name@1.2`) starts with an `@` of its own.
 * `latest` and an empty version mean no pin.
 */
export function splitVersion(reference: string): { name: string; version: string | undefined } {
  const at = reference.indexOf('@', reference.startsWith('@') ? 1 : 0);
  if (at <= 0) return { name: reference, version: undefined };
  const version = reference.slice(at + 1);
  return { name: reference.slice(0, at), version: version === '' || version === 'latest' ? undefined : version };
}

/** A directory name for a cache entry: only characters every file system accepts. */
export const safeName = (value: string): string => value.replace(/[^A-Za-z0-9._@+-]/g, '_');
