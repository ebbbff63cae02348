import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { VoucherSheet } from '../../domain/booking/voucher.js';
import type { VoucherDocuments } from '../../domain/booking/voucher-documents.port.js';
import { qrPng, renderVoucherPdf } from './voucher-pdf.js';
import type { RenderJob, RenderResult } from './voucher-render.worker.js';

/**
 * Vouchers rendered on this thread. One page costs the event loop well over 20 ms (pdfkit lays
 * out and compresses, the QR's PNG is encoded in JavaScript; bench/results.md), so a serving
 * instance renders on `PooledVoucherDocuments` instead; this one is for commands and tests.
 */
export class InlineVoucherDocuments implements VoucherDocuments {
  async pdf(sheet: VoucherSheet): Promise<Uint8Array> {
    return renderVoucherPdf(sheet);
  }

  async qrPng(code: string): Promise<Uint8Array> {
    return qrPng(code);
  }
}

interface Pending {
  readonly job: RenderJob;
  readonly resolve: (bytes: Uint8Array) => void;
  readonly reject: (err: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  current: Pending | null;
}

/**
 * A render worker. Compiled, it is the `.js` file beside this one; run from source (tsx), the
 * `.ts` one, loaded through tsx's loader registered in the worker first (a worker does not
 * inherit the loader hooks of the thread that starts it).
 */
const startWorker = (): Worker => {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./voucher-render.worker.js', import.meta.url));
  // tsx's CommonJS hooks, registered in the worker's own thread (Node 20 gives a worker no
  // loader hooks of the thread that starts it), then the worker's source through them.
  const require = createRequire(import.meta.url);
  const tsx = require.resolve('tsx/cjs/api');
  const file = fileURLToPath(new URL('./voucher-render.worker.ts', import.meta.url));
  return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`, { eval: true });
};

/**
 * Vouchers rendered off the event loop, on a small pool of worker threads (started on first use,
 * one job each at a time, the rest queued in order): the loop only posts the sheet and takes the
 * bytes back. A worker that dies fails its job and is replaced on the next one. The workers do not
 * keep the process alive; `close` ends them.
 */
export class PooledVoucherDocuments implements VoucherDocuments {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size: number = Math.max(1, Math.min(2, availableParallelism() - 1))) {}

  pdf(sheet: VoucherSheet): Promise<Uint8Array> {
    return this.run({ id: this.nextId++, kind: 'pdf', sheet });
  }

  qrPng(code: string): Promise<Uint8Array> {
    return this.run({ id: this.nextId++, kind: 'qr', code });
  }

  /** Ends the workers; jobs still queued or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('voucher rendering stopped'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private run(job: RenderJob): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new Error('voucher rendering stopped'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.current === null);
      if (slot === undefined && this.slots.length < this.size) slot = this.start();
      if (slot === undefined) return;
      const pending = this.queue.shift()!;
      slot.current = pending;
      slot.worker.postMessage(pending.job);
    }
  }

  private start(): Slot {
    const worker = startWorker();
    worker.unref();
    const slot: Slot = { worker, current: null };
    worker.on('message', (result: RenderResult) => {
      const pending = slot.current;
      slot.current = null;
      if (pending !== null && pending.job.id === result.id) {
        if ('bytes' in result) pending.resolve(result.bytes);
        else pending.reject(new Error(`voucher rendering failed: ${result.error}`));
      }
      this.dispatch();
    });
    const lost = (err: Error): void => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      slot.current?.reject(err);
      slot.current = null;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`voucher render worker exited (${code})`)));
    this.slots.push(slot);
    return slot;
  }
}
