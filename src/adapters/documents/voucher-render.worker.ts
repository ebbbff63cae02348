import { parentPort } from 'node:worker_threads';
import type { VoucherSheet } from '../../domain/booking/voucher.js';
import { qrPng, renderVoucherPdf } from './voucher-pdf.js';

/** One job of the render pool: a voucher's page, or a code's QR image. */
export type RenderJob = { readonly id: number } & (
  { readonly kind: 'pdf'; readonly sheet: VoucherSheet } | { readonly kind: 'qr'; readonly code: string }
);
/** Its answer: the bytes, or why there are none. */
export type RenderResult = { readonly id: number } & ({ readonly bytes: Uint8Array } | { readonly error: string });

// Renders one job at a time, as the pool hands them out; the bytes move back without a copy.
parentPort?.on('message', (job: RenderJob) => {
  const work = job.kind === 'pdf' ? renderVoucherPdf(job.sheet) : qrPng(job.code);
  work.then(
    (buf) => {
      const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      parentPort!.postMessage({ id: job.id, bytes: own } satisfies RenderResult, [own.buffer as ArrayBuffer]);
    },
    (err: unknown) =>
      parentPort!.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) } satisfies RenderResult),
  );
});
