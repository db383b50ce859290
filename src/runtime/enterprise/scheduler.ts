import type { Logger } from 'pino';
import type { EnterpriseService } from './service.js';

const IDLE_MS = 60_000;

/**
 * Refreshes the enterprise configuration at start and then every refresh_interval, while the API
 * serves; the CLI reads what it left on disk. Failures are recorded by the service, never thrown here.
 */
export function startEnterpriseRefresh(enterprise: EnterpriseService, logger: Logger): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async (): Promise<void> => {
    try {
      if (await enterprise.nextRefreshMs() !== undefined) await enterprise.refresh();
    } catch (error) {
      logger.warn({ err: error }, 'enterprise configuration refresh failed');
    }
    if (stopped) return;
    const delay = (await enterprise.nextRefreshMs().catch(() => undefined)) ?? IDLE_MS;
    timer = setTimeout(() => void tick(), delay);
    // the refresh never keeps the process alive on its own
    timer.unref();
  };
  void tick();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
