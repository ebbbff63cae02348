import type { VoucherSheet } from './voucher.js';

/** Renders vouchers: the printable page and the QR image. */
export interface VoucherDocuments {
  /** One printable A4 page (PDF) showing the sheet, with a QR code holding `sheet.code`. */
  pdf(sheet: VoucherSheet): Promise<Uint8Array>;
  /** The QR code holding `code`, as a PNG image. */
  qrPng(code: string): Promise<Uint8Array>;
}
