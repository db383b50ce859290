import { Command, Option } from 'commander';
import { parsePort } from './proxy-port.js';
import type { RunOptions } from './runtime-format.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * The local runtime's verbs. Each action loads its module when it runs, so `toolyard --help` and
 * `toolyard list` do not pay for what other verbs need (Fastify, the registry server).
 */
export function registerRuntimeCommands(program: Command): void {
  const runtime = program.command('runtime').description('the local runtime: its HTTP API and the supervisors of workloads');
  runtime
    .command('serve')
    .description('serve the local runtime API (loopback only unless --allow-remote with --token-file)')
    .option('-a, --address <host:port>', 'listen address', '127.0.0.1:8180')
    .option('--allow-remote', 'allow a non-loopback address (needs --token-file)', false)
    .option('--token-file <file>', 'file holding the bearer token every request must send (at least 32 characters)')
    .action(async (options: { address: string; allowRemote: boolean; tokenFile?: string }) => {
      await (await import('./runtime-serve.js')).serve(options);
    });
  registerEnterpriseCommands(runtime);
  runtime.addCommand(
    new Command('supervise')
      .description('run the supervisor of one workload in the foreground (started by run and restart)')
      .argument('<name>', 'workload name')
      .action(async (name: string) => {
        await (await import('./runtime-serve.js')).supervise(name);
      }),
    { hidden: true },
  );

  program
    .command('run')
    .description('run an MCP server as a workload and print the URL clients use')
    .argument('<server>', 'npx://<package>[@version], uvx://<package>, go://<module>, an http(s) URL, or a registry server name')
    .argument('[args...]', 'arguments for the server, after --')
    .option('--name <name>', 'workload name (derived from the server when omitted)')
    .option('--group <group>', 'group of the workload (default: default)')
    .option('-e, --env <KEY=VALUE>', 'environment variable for the server (repeatable)', collect, [])
    .option('--secret <name,target=ENV>', 'secret passed as an environment variable (repeatable)', collect, [])
    .option('--proxy-port <port>', 'port of the workload proxy (random free port when omitted)', parsePort)
    .addOption(new Option('--proxy-mode <mode>', 'how clients reach a stdio server').choices(['streamable-http', 'sse']))
    .addOption(new Option('--transport <transport>', 'how the server speaks MCP').choices(['stdio', 'streamable-http', 'sse']))
    .option('--tools <a,b>', 'expose only these tools')
    .action(async (server: string, args: string[], options: RunOptions) => {
      await (await import('./runtime-workloads.js')).run(server, args, options);
    });
  program
    .command('list')
    .description('list workloads (running ones unless --all)')
    .option('-a, --all', 'include workloads that are not running', false)
    .option('--group <group>', 'only the workloads of this group')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (options: { all: boolean; group?: string; format: 'table' | 'json' }) => {
      await (await import('./runtime-workloads.js')).list(options);
    });
  for (const [verb, description] of [
    ['stop', 'stop workloads'],
    ['restart', 'restart workloads'],
    ['rm', 'stop and delete workloads'],
  ] as const) {
    program
      .command(verb)
      .description(description)
      .argument('<name...>', 'workload names')
      .action(async (names: string[]) => {
        await (await import('./runtime-workloads.js')).act(verb, names);
      });
  }
  program
    .command('logs')
    .description("print a workload's server output (or with --proxy its supervisor and proxy log)")
    .argument('<name>', 'workload name')
    .option('--proxy', 'the supervisor and proxy log instead of the server output', false)
    .option('-f, --follow', 'keep printing new lines until Ctrl-C', false)
    .action(async (name: string, options: { proxy: boolean; follow: boolean }) => {
      await (await import('./runtime-logs.js')).logs(name, options);
    });
  program
    .command('export')
    .description("print a workload's run configuration as JSON")
    .argument('<name>', 'workload name')
    .action(async (name: string) => {
      await (await import('./runtime-workloads.js')).exportConfig(name);
    });
}

function registerEnterpriseCommands(runtime: Command): void {
  const enterprise = runtime.command('enterprise').description("the platform's signed configuration this runtime applies (registry, non-registry servers)");
  const format = () => new Option('--format <format>', 'output format').choices(['table', 'json']).default('table');
  enterprise
    .command('set')
    .description('use the configuration of a platform: its base URL (discovery) or its configuration URL')
    .argument('<url>', 'https://platform.example.com or https://platform.example.com/v1/configuration')
    .option('--token-file <file>', 'file holding a bearer token for the fetch, if the platform needs one')
    .addOption(format())
    .action(async (url: string, options: { tokenFile?: string; format: 'table' | 'json' }) => {
      await (await import('./runtime-enterprise.js')).set(url, options);
    });
  enterprise
    .command('status')
    .description('the platform, the directives applied, and which degraded mode applies and why')
    .addOption(format())
    .action(async (options: { format: 'table' | 'json' }) => {
      await (await import('./runtime-enterprise.js')).status(options);
    });
  enterprise
    .command('refresh')
    .description('fetch the configuration now (a failure keeps the last valid one)')
    .addOption(format())
    .action(async (options: { format: 'table' | 'json' }) => {
      await (await import('./runtime-enterprise.js')).refresh(options);
    });
  enterprise
    .command('unset')
    .description('stop applying an enterprise configuration')
    .action(async () => {
      await (await import('./runtime-enterprise.js')).unset();
    });
}
