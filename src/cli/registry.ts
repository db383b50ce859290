import type { Command } from 'commander';
import { parseDuration } from '../core/config/duration.js';
import { ConfigError } from '../core/config/load.js';
import type { LevelWithSilent } from 'pino';

function splitAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*)\]?:(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new ConfigError([`server.address: "${address}" must be HOST:PORT (example: 127.0.0.1:8080)`]);
  return { host: match[1] ?? '127.0.0.1', port };
}

async function loadConfig(file: string | undefined) {
  const [{ loadRegistryConfig }, { resolveConfigPaths }] = await Promise.all([import('../registry/config.js'), import('../registry/config-paths.js')]);
  return resolveConfigPaths(await loadRegistryConfig(file, process.env), file);
}

/** The registry server's modules load only when one of its commands runs, so other verbs start fast. */
export function registerRegistryCommands(program: Command): void {
  const registry = program.command('registry').description('the registry server: a catalog of MCP servers, skills and plugins');

  registry
    .command('serve')
    .description('run the registry server')
    .option('-c, --config <file>', 'YAML configuration file')
    .option('-a, --address <host:port>', 'listen address (overrides server.address)')
    .action(async (options: { config?: string; address?: string }) => {
      const config = await loadConfig(options.config);
      const { host, port } = splitAddress(options.address ?? config.server.address);
      const [{ createLogger }, { buildRegistryApp }] = await Promise.all([import('../core/telemetry/logger.js'), import('../registry/app.js')]);
      const logger = createLogger({ level: config.logging.level as LevelWithSilent, name: 'registry' });
      const app = await buildRegistryApp({ config, logger, env: process.env });
      app.start();
      await app.http.listen({ host, port });
      const stop = async (signal: string) => {
        // SIGTERM comes from an orchestrator: keep serving while /readiness tells the load balancer to
        // stop sending, then close. Ctrl-C (SIGINT) closes at once.
        const delay = signal === 'SIGTERM' ? (parseDuration(config.server.shutdownDelay) ?? 0) : 0;
        logger.info({ signal, delayMs: delay }, 'shutting down');
        app.drain();
        await new Promise((resolve) => setTimeout(resolve, delay));
        await app.close();
        process.exit(0);
      };
      process.once('SIGINT', (signal) => void stop(signal));
      process.once('SIGTERM', (signal) => void stop(signal));
    });

  registry
    .command('migrate')
    .description('apply pending database migrations and exit')
    .option('-c, --config <file>', 'YAML configuration file')
    .action(async (options: { config?: string }) => {
      const config = await loadConfig(options.config);
      const { migrateRegistryDatabase } = await import('../registry/app.js');
      // as the migrationUrl user when one is set
      const applied = await migrateRegistryDatabase(config.database);
      console.log(applied.length === 0 ? 'the database is up to date' : `applied: ${applied.join(', ')}`);
    });

  registry
    .command('check-config')
    .description('validate a configuration file and exit')
    .requiredOption('-c, --config <file>', 'YAML configuration file')
    .action(async (options: { config: string }) => {
      await loadConfig(options.config);
      console.log(`${options.config}: valid`);
    });
}
