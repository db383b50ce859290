import type { Command } from 'commander';
import type { PlatformDatabase } from '../platform/db.js';

async function loadConfig(file: string | undefined) {
  const { loadPlatformConfig } = await import('../platform/config.js');
  return loadPlatformConfig(file, process.env);
}

/** The platform's modules load only when one of its commands runs, so other verbs start fast. */
export function registerPlatformCommands(program: Command): void {
  const platform = program.command('platform').description('the platform: directory, keys, budgets, connectors, and the gateways that enforce them');

  platform
    .command('serve')
    .description('run the platform service')
    .option('-c, --config <file>', 'YAML configuration file')
    .option('-a, --address <host:port>', 'listen address (overrides server.address)')
    .action(async (options: { config?: string; address?: string }) => {
      // PGlite loads and compiles on its own thread while the configuration is read (unused with PostgreSQL)
      const prepared = (await import('../core/db/pglite-thread.js')).preparePgliteThread();
      const config = await loadConfig(options.config);
      const { splitAddress, stopOnSignals, startEmbeddedDatabase, closingDatabase } = await import('./serve.js');
      const { host, port } = splitAddress(options.address ?? config.server.address, options.address === undefined ? 'server.address' : '--address');
      const [[{ createLogger }, { buildPlatformApp }], database] = await Promise.all([
        Promise.all([import('../core/telemetry/logger.js'), import('../platform/app.js')]),
        startEmbeddedDatabase<PlatformDatabase>(config.database, prepared),
      ]);
      const logger = createLogger({ level: config.logging.level, name: 'platform' });
      const app = await buildPlatformApp({ config, logger, ...(database && { database }) }).catch(async (error: unknown) => {
        await database?.close();
        throw error;
      });
      app.start();
      await app.http.listen({ host, port });
      stopOnSignals(closingDatabase(app, database), { logger, shutdownDelay: config.server.shutdownDelay });
    });

  platform
    .command('migrate')
    .description('apply pending database migrations and exit')
    .option('-c, --config <file>', 'YAML configuration file')
    .action(async (options: { config?: string }) => {
      const config = await loadConfig(options.config);
      const { migratePlatformDatabase } = await import('../platform/app.js');
      const applied = await migratePlatformDatabase(config.database);
      console.log(applied.length === 0 ? 'the database is up to date' : `applied: ${applied.join(', ')}`);
    });

  platform
    .command('verify-config')
    .description('verify a signed configuration envelope offline and print what it enforces (exit 0 valid, 1 invalid, 2 expired)')
    .argument('<file|url>', 'an envelope file, or the platform URL of /v1/configuration')
    .option('--jwks <file|url>', 'the public keys (default: found through the platform\'s discovery document)')
    .action(async (location: string, options: { jwks?: string }) => {
      const { verifyConfigCommand } = await import('./platform-verify.js');
      process.exitCode = await verifyConfigCommand(location, options);
    });

  platform
    .command('verify-export')
    .description('verify exported tool-call records offline: their hash chain and signed checkpoints (exit 0 ok, 1 broken, 2 unreadable input)')
    .argument('<file>', 'an export page of GET /v1/tool-usage/export, or a JSON array of pages')
    .requiredOption('--jwks <file|url>', "the platform's public keys (its /.well-known/jwks.json)")
    .option('--allow-gaps', 'accept missing sequences (an export filtered by environment or time)')
    .option('--json', 'print each verdict as a JSON object')
    .action(async (file: string, options: { jwks: string; allowGaps?: boolean; json?: boolean }) => {
      const { verifyExportCommand } = await import('./platform-verify-export.js');
      process.exitCode = await verifyExportCommand(file, options);
    });

  platform
    .command('check-config')
    .description('validate a configuration file and exit')
    .requiredOption('-c, --config <file>', 'YAML configuration file')
    .action(async (options: { config: string }) => {
      await loadConfig(options.config);
      console.log(`${options.config}: valid`);
    });
}
