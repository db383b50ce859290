/** The Kubernetes name rules AI policies use: DNS-1123 subdomains, label keys and label values. */

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why `name` is not a DNS-1123 subdomain of at most 253 characters; undefined when it is one. */
export function subdomainProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 253) return 'must be at most 253 characters';
  if (!SUBDOMAIN.test(name)) return "must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit";
  return undefined;
}

/** A label key: an optional DNS-1123 subdomain prefix and '/', then a name of 1–63 characters. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0) {
    const prefixProblem = subdomainProblem(key.slice(0, slash));
    if (prefixProblem) return `has a prefix that ${prefixProblem}`;
  }
  if (name.length === 0 || name.length > 63) return 'must have a name of 1 to 63 characters';
  if (!LABEL_NAME.test(name)) return "must have a name of letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
  return undefined;
}

/** A label value: empty, or up to 63 characters built like a label name. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return 'must be at most 63 characters';
  if (!LABEL_NAME.test(value)) return "must be empty or letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
  return undefined;
}
