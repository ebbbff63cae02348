import 'reflect-metadata';
import { Container } from 'inversify';
import type { Core, CoreOptions } from './core.js';
import { useCaseModules } from './modules/areas.module.js';
import type { Ports, PortSet } from './ports.js';
import { TOKENS } from './tokens.js';

/**
 * The use cases on one set of ports, composed by the same bindings as the service and the admin
 * command line (`useCaseModules`), with the ports and options given. Build the ports with
 * `createMemoryPorts()` or `createPostgresPorts(…)` and start them before the first call.
 */
export function createCore(ports: Ports, options: CoreOptions = {}): Core {
  const container = new Container({ defaultScope: 'Singleton' });
  // The caller starts and stops its ports; the composition only reads them.
  const given: PortSet = { ...ports, start: async () => undefined, stop: async () => undefined, changes: null };
  container.bind(TOKENS.Ports).toConstantValue(given);
  container.bind(TOKENS.CoreOptions).toConstantValue(options);
  container.load(...useCaseModules);
  return container.get(TOKENS.Core);
}
