import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Order } from '../../domain/booking/order.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import {
  inTimeZone,
  voucherClaimsOf,
  voucherOrderAt,
  voucherValidity,
  type Voucher,
  type VoucherSheet,
} from '../../domain/booking/voucher.js';
import type { VoucherCodes } from '../../domain/booking/voucher-codes.port.js';
import type { VoucherDocuments } from '../../domain/booking/voucher-documents.port.js';

/** What the voucher is asked for as: the printable page, or its data. */
export type VoucherFormat = 'pdf' | 'json';

/** The voucher in the format asked for. */
export type VoucherAnswer = { readonly format: 'pdf'; readonly pdf: Uint8Array } | { readonly format: 'json'; readonly voucher: Voucher };

const hoursAndMinutes = (minutes: number): string => {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `about ${m} min` : `about ${h} h${m === 0 ? '' : ` ${m} min`}`;
};

/**
 * The voucher of one of the caller's own orders (CONTRACT §6.5): only a CONFIRMED order (as it is
 * now) has one, else `voucher-not-available`; another agent's order is `order-not-found`, as when
 * reading it. Its code is signed anew on each request (the same claims but `iat`).
 */
export class GetVoucher {
  constructor(
    private readonly orders: OrderRepo,
    private readonly tariffs: Pick<TariffReader, 'findOperators' | 'findLocations' | 'findCities' | 'vehicleClasses'>,
    private readonly codes: VoucherCodes,
    private readonly documents: VoucherDocuments,
    private readonly clock: Clock,
  ) {}

  async execute(principal: AgentPrincipal, orderId: string, format: VoucherFormat): Promise<VoucherAnswer> {
    const stored = await this.orders.find({ agentId: principal.agentId }, orderId);
    if (stored === null) throw new DomainError('order-not-found');
    const now = this.clock.now();
    const order = voucherOrderAt(stored, now);
    const code = await this.codes.sign(voucherClaimsOf(order, now));
    const validity = voucherValidity(order);
    if (format === 'json') {
      return { format, voucher: { orderId: order.id, code, qrPng: await this.documents.qrPng(code), ...validity } };
    }
    return { format, pdf: await this.documents.pdf(await this.sheetOf(order, code, validity)) };
  }

  /** What the page shows, with names read from the catalogue (an id where the catalogue has none). */
  private async sheetOf(
    order: Order & { operatorCode: string },
    code: string,
    validity: ReturnType<typeof voucherValidity>,
  ): Promise<VoucherSheet> {
    const [operator] = await this.tariffs.findOperators([order.operatorCode]);
    const timezone = operator?.timezone ?? 'UTC';
    const start = inTimeZone(order.startsAt, timezone);
    const common = {
      orderId: order.id,
      product: order.product,
      startLocal: start.local,
      timezone: start.zone,
      passengers: order.passengers.map((p) => p.name),
      operatorName: operator?.name ?? order.operatorCode,
      operatorReference: order.operatorReference,
      code,
      ...validity,
    };
    const d = order.details;
    if ('tripId' in d) {
      const cities = new Map((await this.tariffs.findCities([d.fromCityId, d.toCityId])).map((c) => [c.id, c.name]));
      return {
        ...common,
        from: cities.get(d.fromCityId) ?? d.fromCityId,
        to: cities.get(d.toCityId) ?? d.toCityId,
        startLabel: 'Departure',
        details: [
          ['Arrival', inTimeZone(new Date(d.arrivesAt), timezone).local],
          ['Seats', String(d.passengers)],
        ],
      };
    }
    const [places, classes] = await Promise.all([
      this.tariffs.findLocations([d.fromLocationId, d.toLocationId]),
      this.tariffs.vehicleClasses(),
    ]);
    const name = (id: string): string => {
      const place = places.find((l) => l.id === id);
      return place === undefined ? id : place.type === 'airport' ? `${place.name} (${place.code})` : `${place.name}, ${place.city}`;
    };
    return {
      ...common,
      from: name(d.fromLocationId),
      to: name(d.toLocationId),
      startLabel: 'Pickup',
      details: [
        ['Vehicle', classes.find((c) => c.code === d.vehicleClass)?.name ?? d.vehicleClass],
        ['Duration', hoursAndMinutes(d.durationMinutes)],
      ],
    };
  }
}
