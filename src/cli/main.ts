import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerArtifactCommands } from './artifacts.js';
import { registerPlatformCommands } from './platform.js';
import { registerRegistryCommands } from './registry.js';
import { registerRuntimeCommands } from './runtime.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const program = new Command('toolyard').description('Toolyard: run AI tools in companies and on laptops').version(VERSION);
registerRegistryCommands(program);
registerPlatformCommands(program);
registerRuntimeCommands(program);
registerArtifactCommands(program);

program.parseAsync(process.argv).catch(async (error: unknown) => {
  // loaded only on failure: the configuration loader pulls in YAML and TypeBox, which `--help` and `list` do not need
  const { ConfigError } = await import('../core/config/load.js');
  if (error instanceof ConfigError) {
    console.error(`toolyard: invalid configuration\n${error.problems.map((problem) => `  ${problem}`).join('\n')}`);
    process.exit(2);
  }
  console.error(`toolyard: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
