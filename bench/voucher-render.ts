/**
 * `npx tsx bench/voucher-render.ts`: how long one voucher page holds the event loop when rendered
 * on it, and the longest the loop is held while the same pages render on the worker pool the
 * service uses (`PooledVoucherDocuments`). Options: VOUCHER_RENDERS (default 40).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { InlineVoucherDocuments, PooledVoucherDocuments } from '../src/adapters/documents/voucher-documents.js';
import type { VoucherSheet } from '../src/domain/booking/voucher.js';

const renders = Number(process.env.VOUCHER_RENDERS ?? 40);
const sheet: VoucherSheet = {
  orderId: 'ord_01JG7PRX4HVQ9HPABV7THS8MZN',
  product: 'airport-transfer',
  from: 'Suvarnabhumi Airport (BKK)',
  to: 'Riverside Hotel, Bangkok',
  startLabel: 'Pickup',
  startLocal: 'Tue 29 Dec 2026, 10:00',
  timezone: 'Asia/Bangkok (UTC+07:00)',
  details: [
    ['Vehicle', 'Sedan'],
    ['Duration', 'about 45 min'],
  ],
  passengers: ['Malee Srisuk', 'Anan Srisuk'],
  operatorName: 'Siam Airport Transfers',
  operatorReference: 'SAT-20417',
  // The size of a real code: ES256, a 43-character kid, the five claims.
  code: `${'e'.repeat(120)}.${'p'.repeat(150)}.${'s'.repeat(86)}`,
  validFrom: new Date(),
  validUntil: new Date(Date.now() + 86_400_000),
};

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const ms = (n: number): string => `${n.toFixed(1)} ms`;

const inline = new InlineVoucherDocuments();
await inline.pdf(sheet); // warm: fonts and modules loaded
const held: number[] = [];
for (let i = 0; i < renders; i++) {
  const t = performance.now();
  await inline.pdf(sheet);
  held.push(performance.now() - t);
}

const pool = new PooledVoucherDocuments();
await pool.pdf(sheet); // the worker started and warm
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const t0 = performance.now();
await Promise.all(Array.from({ length: renders }, () => pool.pdf(sheet)));
const wall = performance.now() - t0;
loop.disable();
await pool.close();

console.log(
  `on the event loop: one page holds it p50 ${ms(quantile(held, 0.5))}, p95 ${ms(quantile(held, 0.95))}, max ${ms(Math.max(...held))}`,
);
console.log(
  `on the worker pool: ${renders} pages in ${ms(wall)}; the loop's delay meanwhile p50 ${ms(loop.percentile(50) / 1e6)}, p99 ${ms(loop.percentile(99) / 1e6)}, max ${ms(loop.max / 1e6)}`,
);
