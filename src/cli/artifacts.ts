import { Command, Option } from 'commander';
import type { Kind } from '../runtime/artifacts/kinds.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const actions = () => import('./artifacts-actions.js');

const scopeOptions = (command: Command): Command =>
  command
    .addOption(new Option('--scope <scope>', 'user folders, or a project’s').choices(['user', 'project']))
    .option('--project-root <dir>', 'the project (scope project; default: the current directory)');

/**
 * `toolyard skill …` and `toolyard plugin …`: the same verbs for both kinds, on the same library
 * (and the same files) as the runtime API.
 */
export function registerArtifactCommands(program: Command): void {
  for (const [verb, kind] of [
    ['skill', 'skills'],
    ['plugin', 'plugins'],
  ] as const satisfies [string, Kind][]) {
    const group = program.command(verb).description(`${kind}: install for AI clients, validate, build, and keep a project in step with toolyard.lock.yaml`);
    scopeOptions(
      group
        .command('install')
        .description(`install a ${verb} into each client's folder`)
        .argument('<reference>', 'git://host/path[@ref][#folder], host[:port]/repository:tag, a local build tag, or a catalog name')
        .option('--client <client>', 'a client to install for (repeatable; "all" for every one; default: those installed here)', collect, [])
        .option('--expect-version <version>', 'the version the content must have (the API’s version field)')
        .option('--group <group>', 'list it in this group')
        .option('--force', 'replace folders toolyard did not install', false)
        .option('--allow-unsigned', 'install unsigned content over a lock entry that records a signer', false)
        .option('--marketplace <marketplace>', 'plugins: look the name up in this marketplace (git:// repository, path or https URL of its marketplace.json)'),
    ).action(async (reference: string, options: Record<string, unknown>) => (await actions()).install(kind, reference, options));
    scopeOptions(group.command('list').description(`list installed ${kind}`))
      .option('--client <client>', 'only those installed for this client')
      .option('--group <group>', 'only those of this group')
      .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
      .action(async (options: Record<string, unknown>) => (await actions()).list(kind, options));
    scopeOptions(group.command('info').description(`details of an installed ${verb}`).argument('<name>')).action(async (name: string, options: Record<string, unknown>) =>
      (await actions()).info(kind, name, options),
    );
    scopeOptions(group.command('rm').description(`uninstall a ${verb} from every client it was installed for`).argument('<name>')).action(async (name: string, options: Record<string, unknown>) =>
      (await actions()).remove(kind, name, options),
    );
    group
      .command('validate')
      .description(`check a ${verb} folder against its format`)
      .argument('<path>')
      .action(async (path: string) => (await actions()).validate(kind, path));
    group
      .command('build')
      .description(`build a ${verb} folder into the local OCI layout`)
      .argument('<path>')
      .option('--tag <tag>', 'default <name>:<version|latest>; may be a full OCI reference')
      .action(async (path: string, options: { tag?: string }) => (await actions()).build(kind, path, options));
    group
      .command('push')
      .description(`push a local ${verb} build to the OCI registry its tag names`)
      .argument('<reference>', 'the build tag, host/repository:tag')
      .option('--key <pem>', 'sign with this PEM ECDSA P-256 private key')
      .option('--identity-token-file <file>', 'sign keylessly with the OIDC identity token this file holds (needs sigstore.fulcioUrl and sigstore.rekorUrl)')
      .option('--no-sign', 'push without a signature')
      .action(async (reference: string, options: Record<string, unknown>) => (await actions()).push(kind, reference, options));
    group
      .command('sync')
      .description("restore the project's installs to match its toolyard.lock.yaml")
      .option('--project-root <dir>', 'the project (default: the current directory)')
      .option('--client <client>', 'reinstall for these clients instead of each entry’s (repeatable)', collect, [])
      .option('--prune', 'uninstall what was removed from the lock file', false)
      .option('--check', 'report only; exit 1 when anything is out of step', false)
      .option('--adopt', 'write lock entries for installs the lock file never had', false)
      .action(async (options: Record<string, unknown>) => (await actions()).sync(kind, options));
    group
      .command('upgrade')
      .description('move lock entries to what their sources name now')
      .argument('[names...]', 'entries to upgrade (default: all)')
      .option('--project-root <dir>', 'the project (default: the current directory)')
      .option('--client <client>', 'install for these clients instead of each entry’s (repeatable)', collect, [])
      .option('--preview', 'report what would change; install nothing', false)
      .option('--fail-on-changes', 'as --preview, exiting 1 when an upgrade is available', false)
      .option('--allow-ref-change', 'allow a source that now resolves to another repository', false)
      .option('--allow-signer-change', 'allow another signer, or unsigned content over a signed entry', false)
      .action(async (names: string[], options: Record<string, unknown>) => (await actions()).upgrade(kind, names, options));
  }
}
