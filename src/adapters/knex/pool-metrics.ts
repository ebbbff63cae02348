import type { Knex } from 'knex';
import { Gauge, Histogram, type Registry } from 'prom-client';
import { tarnPoolOf } from './knex-internals.js';

/** Reports a Knex pool's use at each scrape, and how long each acquisition waited. */
export function watchPool(registry: Registry, knex: Knex): void {
  const pool = tarnPoolOf(knex);
  if (pool === null) return;
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (used, free, max) and acquisitions waiting (pending)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'used' }, pool.numUsed());
      this.set({ state: 'free' }, pool.numFree());
      this.set({ state: 'pending' }, pool.numPendingAcquires());
      this.set({ state: 'max' }, pool.max);
    },
  });
  const waits = new Histogram({
    name: 'db_pool_acquire_wait_seconds',
    help: 'How long each request for a pooled connection waited',
    labelNames: ['outcome'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3],
    registers: [registry],
  });
  const asked = new Map<number, number>();
  pool.on('acquireRequest', (id) => asked.set(id, performance.now()));
  const done = (outcome: 'acquired' | 'failed') => (id: number) => {
    const at = asked.get(id);
    if (at === undefined) return;
    asked.delete(id);
    waits.observe({ outcome }, (performance.now() - at) / 1000);
  };
  pool.on('acquireSuccess', done('acquired'));
  pool.on('acquireFail', done('failed'));
}
