import { resolve } from 'node:path';
import type { EnterpriseStatus } from '../runtime/enterprise/schemas.js';
import { openRuntime } from './runtime-context.js';

export type StatusFormat = 'table' | 'json';

/** The status as a person reads it: the token file is named, the token never is. */
export function describeStatus(status: EnterpriseStatus): string {
  if (!status.configured) return 'no enterprise configuration is set (toolyard runtime enterprise set <url>)';
  const lines = [
    `platform        ${status.platform_url}`,
    `configuration   ${status.config_url}`,
    `keys            ${status.jwks_uri}`,
    ...(status.token_file === '' ? [] : [`token file      ${status.token_file}`]),
    `mode            ${status.mode}: ${status.reason}`,
    ...(status.message === '' ? [] : [`message         ${status.message}`]),
  ];
  const { envelope, last_refresh: last } = status;
  if (envelope) {
    lines.push(`issued_at       ${envelope.issued_at}`, `not_after       ${envelope.not_after}`, `refresh         every ${envelope.refresh_interval}`);
    lines.push(`degraded mode   ${status.policy} after a grace period of ${envelope.grace_period}`, `etag            ${envelope.etag}`, `signed by kid   ${envelope.kid}`);
    const directives = Object.entries(envelope.directives).sort(([a], [b]) => a.localeCompare(b));
    lines.push(directives.length === 0 ? 'directives      none' : 'directives:');
    for (const [name, directive] of directives) lines.push(`  ${directive.enforcement.padEnd(8)}  ${name} = ${JSON.stringify(directive.value)}`);
  }
  if (last) lines.push(`last refresh    ${last.at} ${last.outcome}${last.error === '' ? '' : `: ${last.error}`}`);
  return lines.join('\n');
}

const print = (status: EnterpriseStatus, format: StatusFormat): void => console.log(format === 'json' ? JSON.stringify(status, null, 2) : describeStatus(status));

export async function set(url: string, options: { tokenFile?: string; format: StatusFormat }): Promise<void> {
  const { enterprise } = openRuntime();
  print(await enterprise.set({ url, ...(options.tokenFile !== undefined && { token_file: resolve(options.tokenFile) }) }), options.format);
}

export async function status(options: { format: StatusFormat }): Promise<void> {
  print(await openRuntime().enterprise.status(), options.format);
}

export async function refresh(options: { format: StatusFormat }): Promise<void> {
  print(await openRuntime().enterprise.refresh(), options.format);
}

export async function unset(): Promise<void> {
  await openRuntime().enterprise.unset();
  console.log('enterprise configuration unset: nothing is enforced any more');
}
