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

/** Medium error correction survives a creased print; the standard four-module quiet zone. */
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/** The QR code holding `code`, PNG, quiet zone included. */
export const qrPng = (code: string, width = 400): Promise<Buffer> => QRCode.toBuffer(code, { ...QR_OPTIONS, type: 'png', width });

/**
 * The QR code holding `code` as qrcode draws it in SVG: its size in modules (quiet zone included)
 * and the path of its dark modules, one-module-wide strokes along each row. Drawn into the page
 * as vector strokes, it stays sharp at any print size and costs a fraction of embedding a PNG.
 */
async function qrPath(code: string): Promise<{ modules: number; dark: string }> {
  const svg = await QRCode.toString(code, { ...QR_OPTIONS, type: 'svg' });
  const modules = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const dark = /<path[^>]*stroke="#000000"[^>]*d="([^"]+)"/.exec(svg)?.[1];
  if (!Number.isInteger(modules) || dark === undefined) throw new Error('qrcode drew an SVG of an unexpected shape');
  return { modules, dark };
}

const utc = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * One printable A4 page (pdfkit, its standard Helvetica): a band with the product and the order,
 * the trip and its start in the operator's time zone on the left, the QR code on the right, then
 * the passengers, the operator and its reference, and how long the voucher is valid.
 */
export async function renderVoucherPdf(sheet: VoucherSheet): Promise<Buffer> {
  const qr = await qrPath(sheet.code);
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
  doc.save();
  doc.translate(qrX, top).scale(qrSize / qr.modules);
  doc.rect(0, 0, qr.modules, qr.modules).fill('#ffffff');
  doc.path(qr.dark).lineWidth(1).strokeColor('#000000').stroke();
  doc.restore();
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

  // What the traveller needs to know, in a light box below.
  y += 40;
  const notes = [
    sheet.startLabel === 'Pickup'
      ? 'Be ready at the pickup point at the time above (the operator’s local time).'
      : 'Be at the departure point at least 20 minutes before the time above (the operator’s local time).',
    'Show this page to the driver, printed or on a phone: the QR code is scanned when you board.',
    'It admits the passengers named above, once.',
    'To change or cancel the booking, contact the agent you booked with.',
  ];
  doc.font('Helvetica').fontSize(10.5);
  const noteHeight = notes.reduce((h, n) => h + doc.heightOfString(n, { width: width - 48 }) + 6, 0);
  doc.roundedRect(left, y, width, noteHeight + 46, 6).fill('#f1f5f8');
  doc
    .fillColor(BAND)
    .font('Helvetica-Bold')
    .fontSize(11)
    .text('Before you travel', left + 18, y + 14, { width: width - 36 });
  let ny = y + 34;
  doc.font('Helvetica').fontSize(10.5);
  for (const note of notes) {
    doc
      .fillColor(BAND)
      .circle(left + 22, ny + 5, 2)
      .fill();
    doc.fillColor(INK).text(note, left + 32, ny, { width: width - 48 });
    ny += doc.heightOfString(note, { width: width - 48 }) + 6;
  }

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
