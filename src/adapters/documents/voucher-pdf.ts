import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import type { VoucherSheet } from '../../domain/booking/voucher.js';

/** A4 in PDF points, and the page's margin. */
const PAGE = { width: 595.28, height: 841.89, margin: 48 } as const;
const INK = '#1a1a1a';
const MUTED = '#5f6368';
const RULE = '#d0d4d9';
const BAND = '#0b4f6c';

const PRODUCT_NAMES: Record<VoucherSheet['product'], string> = {
  'airport-transfer': 'Airport transfer',
  'express-bus': 'Express bus',
};

/** The QR code holding `code`, PNG, quiet zone included; medium error correction survives a creased print. */
export const qrPng = (code: string, width = 600): Promise<Buffer> =>
  QRCode.toBuffer(code, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width });

const utc = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * One printable A4 page (pdfkit, its standard Helvetica): a band with the product and the order,
 * the trip and its start in the operator's time zone on the left, the QR code on the right, then
 * the passengers, the operator and its reference, and how long the voucher is valid.
 */
export async function renderVoucherPdf(sheet: VoucherSheet): Promise<Buffer> {
  const qr = await qrPng(sheet.code);
  const doc = new PDFDocument({
    size: 'A4',
    margin: PAGE.margin,
    autoFirstPage: true,
    info: {
      Title: `Voucher ${sheet.orderId}`,
      Subject: `${PRODUCT_NAMES[sheet.product]} voucher`,
      Creator: 'Partner Booking and Wallet Service',
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = PAGE.margin;
  const right = PAGE.width - PAGE.margin;
  const width = right - left;

  // The band: what it is and which order.
  doc.rect(0, 0, PAGE.width, 96).fill(BAND);
  doc.fillColor('#ffffff').font('Helvetica-Bold').fontSize(24).text('Travel voucher', left, 28, { width, lineBreak: false });
  doc
    .font('Helvetica')
    .fontSize(12)
    .text(`${PRODUCT_NAMES[sheet.product]}  ·  Order ${sheet.orderId}`, left, 60, { width, lineBreak: false });

  // The QR code, on the right, with what it is for under it.
  const qrSize = 190;
  const qrX = right - qrSize;
  const top = 124;
  doc.image(qr, qrX, top, { width: qrSize, height: qrSize });
  doc
    .fillColor(MUTED)
    .font('Helvetica')
    .fontSize(8.5)
    .text('Show this code to the driver. It is checked offline against the service’s published keys.', qrX, top + qrSize + 6, {
      width: qrSize,
      align: 'center',
    });

  // The trip, on the left of the code.
  const colWidth = qrX - left - 24;
  let y = top;
  const label = (text: string, at: number): void => {
    doc.fillColor(MUTED).font('Helvetica').fontSize(9).text(text.toUpperCase(), left, at, { width: colWidth, characterSpacing: 0.6 });
  };
  const value = (text: string, size = 13, bold = false): number => {
    doc
      .fillColor(INK)
      .font(bold ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(size);
    const h = doc.heightOfString(text, { width: colWidth });
    doc.text(text, left, y, { width: colWidth });
    return h;
  };
  const field = (name: string, text: string, size = 13, bold = false): void => {
    label(name, y);
    y += 13;
    y += value(text, size, bold) + 12;
  };
  field('From', sheet.from, 14, true);
  field('To', sheet.to, 14, true);
  label(sheet.startLabel, y);
  y += 13;
  y += value(sheet.startLocal, 16, true) + 2;
  // Whose clock: the operator's zone and its offset then.
  doc.fillColor(MUTED).font('Helvetica').fontSize(10);
  const zone = `local time, ${sheet.timezone}`;
  doc.text(zone, left, y, { width: colWidth });
  y += doc.heightOfString(zone, { width: colWidth }) + 12;
  for (const [name, text] of sheet.details) field(name, text, 11);

  // Below both columns: who travels, who runs it, how long the voucher holds.
  y = Math.max(y, top + qrSize + 44) + 8;
  doc.moveTo(left, y).lineTo(right, y).lineWidth(0.8).strokeColor(RULE).stroke();
  y += 16;
  const half = (width - 24) / 2;
  const startY = y;
  label(`Passengers (${sheet.passengers.length})`, y);
  y += 14;
  doc.fillColor(INK).font('Helvetica').fontSize(12);
  const names = sheet.passengers.length === 0 ? ['(names not given)'] : sheet.passengers;
  for (const [i, name] of names.entries()) {
    const line = `${i + 1}.  ${name}`;
    doc.text(line, left, y, { width: half });
    y += doc.heightOfString(line, { width: half }) + 3;
  }
  let ry = startY;
  const rightField = (name: string, text: string, bold = false): void => {
    doc
      .fillColor(MUTED)
      .font('Helvetica')
      .fontSize(9)
      .text(name.toUpperCase(), left + half + 24, ry, { width: half, characterSpacing: 0.6 });
    ry += 13;
    doc
      .fillColor(INK)
      .font(bold ? 'Helvetica-Bold' : 'Helvetica')
      .fontSize(12);
    doc.text(text, left + half + 24, ry, { width: half });
    ry += doc.heightOfString(text, { width: half }) + 12;
  };
  rightField('Operator', sheet.operatorName, true);
  rightField('Operator reference', sheet.operatorReference ?? '—');
  rightField('Order', sheet.orderId);
  y = Math.max(y, ry) + 8;

  doc.moveTo(left, y).lineTo(right, y).lineWidth(0.8).strokeColor(RULE).stroke();
  y += 14;
  doc
    .fillColor(MUTED)
    .font('Helvetica')
    .fontSize(9)
    .text(`Valid from ${utc(sheet.validFrom)} until ${utc(sheet.validUntil)}. One use: the operator redeems it when you board.`, left, y, {
      width,
    });

  // The footer: the code's text, for a scanner that cannot read the image.
  const footerY = PAGE.height - PAGE.margin - 44;
  doc
    .moveTo(left, footerY - 8)
    .lineTo(right, footerY - 8)
    .lineWidth(0.5)
    .strokeColor(RULE)
    .stroke();
  doc
    .fillColor(MUTED)
    .font('Courier')
    .fontSize(5.5)
    .text(sheet.code, left, footerY, { width, height: 44, lineBreak: true, ellipsis: true });
  doc.end();
  return done;
}
