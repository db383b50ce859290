import type { Command } from 'commander';
import type { RegistryDatabase } from '../registry/tables.js';

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
      // PGlite loads and compiles on its own thread while the configuration is read (unused with PostgreSQL)
      const prepared = (await import('../core/db/pglite-thread.js')).preparePgliteThread();
      const config = await loadConfig(options.config);
      const { splitAddress, stopOnSignals, startEmbeddedDatabase, closingDatabase } = await import('./serve.js');
      const { host, port } = splitAddress(options.address ?? config.server.address, options.address === undefined ? 'server.address' : '--address');
      const [[{ createLogger }, { buildRegistryApp }], database] = await Promise.all([
        Promise.all([import('../core/telemetry/logger.js'), import('../registry/app.js')]),
        startEmbeddedDatabase<RegistryDatabase>(config.database, prepared),
      ]);
      const logger = createLogger({ level: config.logging.level, name: 'registry' });
      const app = await buildRegistryApp({ config, logger, env: process.env, ...(database && { database }) }).catch(async (error: unknown) => {
        await database?.close();
        throw error;
      });
      await app.http.listen({ host, port });
      // syncs and change polling start once the server answers: the catalog is already served from the read model
      app.start();
      stopOnSignals(closingDatabase(app, database), { logger, shutdownDelay: config.server.shutdownDelay });
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
