import type { HttpApp } from '../core/http/app.js';
import { startEnterpriseRefresh } from './enterprise/scheduler.js';
import { createRuntimeHttpApp } from './http/app.js';
import { writeSigningCapability } from './artifacts/signing-capability.js';
import { RUNTIME_VERSION } from './version.js';
import { createRuntimeServices, type RuntimeServices, type RuntimeServicesOptions } from './services.js';

export interface RuntimeAppOptions extends RuntimeServicesOptions {
  /** The host `runtime serve` listens on (default 127.0.0.1); the rebinding guard admits it. */
  boundHost?: string;
  /** When set, every route but /health needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
}

export interface RuntimeApp extends RuntimeServices {
  http: HttpApp;
  close: () => Promise<void>;
}

/**
 * Wires the local runtime API: files, services and the supervisor launcher behind the HTTP routes.
 * Workloads outlive the app: closing it stops serving, never the supervisors.
 */
export async function buildRuntimeApp(options: RuntimeAppOptions): Promise<RuntimeApp> {
  const services = createRuntimeServices(options);
  await writeSigningCapability(options.paths.state);
  const http = await createRuntimeHttpApp({
    logger: options.logger,
    version: RUNTIME_VERSION,
    services,
    boundHost: options.boundHost ?? '127.0.0.1',
    token: options.token,
  });
  const refresh = startEnterpriseRefresh(services.enterprise, options.logger);
  return {
    ...services,
    http,
    close: () => {
      refresh.stop();
      return http.close();
    },
  };
}
