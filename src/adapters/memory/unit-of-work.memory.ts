import type { UnitOfWork } from '../../application/unit-of-work.port.js';

/**
 * Units of work in process memory: the work runs as it is. The memory stores check everything
 * before they change anything, so a write that fails leaves nothing behind; writes before a
 * failure stay (there is no rollback in memory).
 */
export class MemoryUnitOfWork implements UnitOfWork {
  async run<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }
}
