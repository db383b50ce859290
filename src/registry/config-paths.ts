import { dirname, isAbsolute, resolve } from 'node:path';
import type { RegistryConfig } from './config.js';

/** Relative paths in a configuration file are relative to the file, wherever the server is started. */
export function resolveConfigPaths(config: RegistryConfig, configFile: string | undefined): RegistryConfig {
  if (configFile === undefined) return config;
  const base = dirname(resolve(configFile));
  const local = (path: string) => (isAbsolute(path) ? path : resolve(base, path));
  const isLocalRepository = (repository: string) => repository.startsWith('./') || repository.startsWith('../');
  return {
    ...config,
    sourceAccess: { ...config.sourceAccess, filePaths: config.sourceAccess.filePaths.map(local) },
    sources: config.sources.map((source) => ({
      ...source,
      ...(source.file?.path !== undefined && { file: { ...source.file, path: local(source.file.path) } }),
      ...(source.git && {
        git: {
          ...source.git,
          ...(isLocalRepository(source.git.repository) && { repository: local(source.git.repository) }),
          ...(source.git.auth && { auth: { ...source.git.auth, passwordFile: local(source.git.auth.passwordFile) } }),
        },
      }),
    })),
  };
}
