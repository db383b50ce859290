import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidInputError } from '../core/errors.js';
import type { Kind } from '../runtime/artifacts/kinds.js';
import type { Scope } from '../runtime/artifacts/store.js';
import { pluginView, pluginViews } from '../runtime/plugins/views.js';
import { skillView, skillViews } from '../runtime/skills/views.js';
import { readSigningCapability, writeSigningCapability } from '../runtime/artifacts/signing-capability.js';
import { runtimePaths } from '../runtime/paths.js';
import { openRuntime } from './runtime-context.js';

type Options = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
const services = (kind: Kind) => openRuntime()[kind];

/** `--scope` and `--project-root` as the library takes them; a relative project root is the shell's. */
function scope(options: Options): { scope?: Scope; project_root?: string } {
  const chosen = text(options.scope) as Scope | undefined;
  const root = text(options.projectRoot);
  if (chosen === 'project' || (chosen === undefined && root !== undefined)) return { scope: 'project', project_root: resolve(root ?? '.') };
  return chosen === undefined ? {} : { scope: chosen };
}

const projectRoot = (options: Options): string => resolve(text(options.projectRoot) ?? '.');
const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

export async function install(kind: Kind, reference: string, options: Options): Promise<void> {
  const clients = strings(options.client);
  const record = await services(kind).installs.install({
    name: reference,
    ...scope(options),
    ...(clients.length > 0 && { clients }),
    ...(text(options.expectVersion) !== undefined && { version: text(options.expectVersion) }),
    ...(text(options.group) !== undefined && { group: text(options.group) }),
    ...(text(options.marketplace) !== undefined && { marketplace: text(options.marketplace) }),
    force: options.force === true,
    allow_unsigned: options.allowUnsigned === true,
  });
  console.log(`installed ${record.name} ${record.digest} for ${record.clients.join(', ')}`);
}

export async function list(kind: Kind, options: Options): Promise<void> {
  const { scope: chosen, project_root } = scope(options);
  const found = await services(kind).installs.list({
    ...(chosen !== undefined && { scope: chosen }),
    ...(project_root !== undefined && { project_root }),
    ...(text(options.client) !== undefined && { client: text(options.client) }),
    ...(text(options.group) !== undefined && { group: text(options.group) }),
  });
  if (options.format === 'json') return print(found.map((record) => (kind === 'skills' ? skillView(record) : pluginView(record))));
  if (found.length === 0) return console.log(`no ${kind} installed`);
  const rows = [['NAME', 'VERSION', 'SCOPE', 'CLIENTS', 'REFERENCE'], ...found.map((record) => [record.name, record.metadata.version, record.project_root || record.scope, record.clients.join(','), record.reference])];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
}

export async function info(kind: Kind, name: string, options: Options): Promise<void> {
  const { installs } = services(kind);
  const record = await installs.get(name, scope(options));
  print(await (kind === 'skills' ? skillViews : pluginViews(installs)).details(record));
}

export async function remove(kind: Kind, name: string, options: Options): Promise<void> {
  await services(kind).installs.uninstall(name, scope(options));
  console.log(`removed ${name}`);
}

export async function validate(kind: Kind, path: string): Promise<void> {
  const result = await services(kind).builds.validate(resolve(path));
  for (const error of result.errors) console.log(`error: ${error}`);
  for (const warning of result.warnings) console.log(`warning: ${warning}`);
  console.log(result.valid ? 'valid' : 'not valid');
  if (!result.valid) process.exitCode = 1;
}

export async function build(kind: Kind, path: string, options: { tag?: string }): Promise<void> {
  console.log((await services(kind).builds.build({ path: resolve(path), tag: options.tag })).reference);
}

async function readToken(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    throw new InvalidInputError(`--identity-token-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export async function push(kind: Kind, reference: string, options: Options): Promise<void> {
  const key = text(options.key);
  const tokenFile = text(options.identityTokenFile);
  const signing = [key, tokenFile].filter((choice) => choice !== undefined).length;
  // pushing unsigned is asked for explicitly, so a forgotten --key never publishes unsigned content
  if (signing === 0 && options.sign !== false) throw new InvalidInputError('give --key <pem> to sign the push, or --no-sign to push unsigned');
  if (signing > 0 && options.sign === false) throw new InvalidInputError('give either --key or --no-sign, not both');
  if (signing > 1) throw new InvalidInputError('give either --key or --identity-token-file, not both');
  if (tokenFile !== undefined) {
    // read from a file, so the token shows in no process list or shell history
    await services(kind).pushes.push({ reference, identity_token: await readToken(resolve(tokenFile)) });
  } else if (key === undefined) {
    await services(kind).pushes.push({ reference, no_sign: true });
  } else {
    // the CLI runs the runtime's library as its user: it presents the capability a running runtime wrote, or starts one
    const state = runtimePaths(process.env).state;
    const capability = (await readSigningCapability(state)) ?? (await writeSigningCapability(state));
    await services(kind).pushes.push({ reference, key: resolve(key), capability });
  }
  console.log(`pushed ${reference}${signing === 0 ? '' : ' signed'}`);
}

export async function sync(kind: Kind, options: Options): Promise<void> {
  const clients = strings(options.client);
  const result = await services(kind).sync.sync({
    project_root: projectRoot(options),
    ...(clients.length > 0 && { clients }),
    prune: options.prune === true,
    check: options.check === true,
    adopt: options.adopt === true,
  });
  for (const [bucket, names] of Object.entries(result)) {
    for (const item of names as (string | { name: string; reason: string; error: string })[]) {
      console.log(typeof item === 'string' ? `${bucket} ${item}` : `${bucket} ${item.name} ${item.reason}: ${item.error}`);
    }
  }
  const outOfStep = result.drifted.length + result.missing.length + result.removed_from_lock.length > 0;
  if (result.failed.length > 0 || (options.check === true && outOfStep)) process.exitCode = 1;
}

export async function upgrade(kind: Kind, names: string[], options: Options): Promise<void> {
  const clients = strings(options.client);
  const { outcomes } = await services(kind).upgrades.upgrade({
    project_root: projectRoot(options),
    ...(names.length > 0 && { names }),
    ...(clients.length > 0 && { clients }),
    preview: options.preview === true,
    fail_on_changes: options.failOnChanges === true,
    allow_ref_change: options.allowRefChange === true,
    allow_signer_change: options.allowSignerChange === true,
  });
  for (const outcome of outcomes) {
    const change = outcome.new_digest === '' || outcome.new_digest === outcome.old_digest ? '' : ` ${outcome.old_digest} -> ${outcome.new_digest}`;
    console.log(`${outcome.name} ${outcome.status}${change}${outcome.error === '' ? '' : `: ${outcome.reason}: ${outcome.error}`}`);
  }
  const changes = outcomes.some((outcome) => outcome.status === 'upgrade-available');
  if (outcomes.some((outcome) => outcome.status === 'failed') || (options.failOnChanges === true && changes)) process.exitCode = 1;
}
