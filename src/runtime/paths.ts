import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the local runtime keeps its files, following the XDG base directory specification. */
export interface RuntimePaths {
  /** Run configurations and groups: `$XDG_STATE_HOME/toolyard/runtime`. */
  readonly state: string;
  /** Statuses, logs and the encrypted secrets store: `$XDG_DATA_HOME/toolyard`. */
  readonly data: string;
  /** Installed packages (npm, Python venvs, Go binaries): `$XDG_CACHE_HOME/toolyard`. */
  readonly cache: string;
  /** User configuration (registry, secrets provider and key file): `$XDG_CONFIG_HOME/toolyard`. */
  readonly config: string;
}

/** XDG says a relative path in these variables is invalid and must be ignored. */
function base(value: string | undefined, fallback: string): string {
  return value !== undefined && value.startsWith('/') ? value : fallback;
}

export function runtimePaths(env: Record<string, string | undefined>, home = homedir()): RuntimePaths {
  return {
    state: join(base(env.XDG_STATE_HOME, join(home, '.local', 'state')), 'toolyard', 'runtime'),
    data: join(base(env.XDG_DATA_HOME, join(home, '.local', 'share')), 'toolyard'),
    cache: join(base(env.XDG_CACHE_HOME, join(home, '.cache')), 'toolyard'),
    config: join(base(env.XDG_CONFIG_HOME, join(home, '.config')), 'toolyard'),
  };
}
