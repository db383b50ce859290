import { InvalidInputError } from '../core/errors.js';
import { checkName } from '../runtime/workloads/run-config.js';
import type { SecretRef, WorkloadRequest, WorkloadSummary } from '../runtime/workloads/schemas.js';

export interface RunOptions {
  name?: string;
  group?: string;
  env: string[];
  secret: string[];
  proxyPort?: number;
  proxyMode?: 'streamable-http' | 'sse';
  transport?: 'stdio' | 'streamable-http' | 'sse';
  tools?: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `npx://`, `uvx://`, `go://` (or any scheme) is an image, http(s) a remote server, a bare name a registry server. */
/**
 * Catalog names are `fetch` or `io.github.example/fetch`; anything with a tag, a digest or more than
 * one slash (`ghcr.io/org/server:1.2`) is an OCI image reference.
 */
const OCI_REFERENCE = /[:@]|\/.*\//;

function target(what: string): Pick<WorkloadRequest, 'image' | 'url' | 'registry' | 'server'> {
  if (/^https?:\/\//i.test(what)) return { url: what };
  if (what.includes('://') || OCI_REFERENCE.test(what)) return { image: what };
  return { registry: 'default', server: what };
}

function parseEnv(pair: string): [string, string] {
  const at = pair.indexOf('=');
  const key = at === -1 ? '' : pair.slice(0, at);
  if (!ENV_NAME.test(key)) throw new InvalidInputError(`--env: "${pair}" must be KEY=VALUE with KEY a variable name`);
  return [key, pair.slice(at + 1)];
}

function parseSecret(text: string): SecretRef {
  const match = /^([^,]+),target=([A-Za-z_][A-Za-z0-9_]*)$/.exec(text);
  if (!match?.[1] || !match[2]) throw new InvalidInputError(`--secret: "${text}" must be NAME,target=ENV_VAR (example: github-token,target=GITHUB_TOKEN)`);
  return { name: match[1], target: match[2] };
}

/** The create body `toolyard run` sends, built from its argument and flags. */
export function runRequest(what: string, args: readonly string[], options: RunOptions): WorkloadRequest {
  if (options.name !== undefined) checkName(options.name, '--name');
  if (options.group !== undefined) checkName(options.group, '--group');
  const tools = options.tools?.split(',').map((tool) => tool.trim()).filter((tool) => tool !== '');
  return {
    ...target(what),
    ...(args.length > 0 && { cmd_arguments: [...args] }),
    ...(options.name !== undefined && { name: options.name }),
    ...(options.group !== undefined && { group: options.group }),
    ...(options.env.length > 0 && { env_vars: Object.fromEntries(options.env.map(parseEnv)) }),
    ...(options.secret.length > 0 && { secrets: options.secret.map(parseSecret) }),
    ...(options.proxyPort !== undefined && { proxy_port: options.proxyPort }),
    ...(options.proxyMode !== undefined && { proxy_mode: options.proxyMode }),
    ...(options.transport !== undefined && { transport: options.transport }),
    ...(tools !== undefined && tools.length > 0 && { tools }),
  };
}

/** A plain-text table: a header row, columns padded to their widest cell. */
export function workloadTable(workloads: readonly WorkloadSummary[]): string {
  const rows = [
    ['NAME', 'PACKAGE', 'STATUS', 'URL', 'PORT', 'GROUP', 'CREATED'],
    ...workloads.map((w) => [w.name, w.package, w.status_context === '' ? w.status : `${w.status} (${w.status_context})`, w.url, String(w.port), w.group, w.created_at]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}
