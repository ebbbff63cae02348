import { expect } from 'chai';
import type { AgentAccounts } from '../../domain/billing/agent-accounts.port.js';
import { MemoryAgentAccounts } from '../../adapters/memory/agent-accounts.memory.js';
import type { UnitOfWork } from '../../application/unit-of-work.port.js';
import { THAILAND_CATALOGUE } from '../../adapters/catalogue/thailand.js';
import { TimeSortableIds } from '../../adapters/crypto/node-crypto.js';
import { ListTrips } from '../../application/booking/list-trips.js';
import { GetQuote } from '../../application/booking/get-quote.js';
import { QuoteBusTrip } from '../../application/booking/quote-bus-trip.js';
import { QuoteTransfer } from '../../application/booking/quote-transfer.js';
import { CancelOrder } from '../../application/booking/cancel-order.js';
import { GetOrder } from '../../application/booking/get-order.js';
import { ListOrders } from '../../application/booking/list-orders.js';
import { PlaceOrder } from '../../application/booking/place-order.js';
import { ConfirmHold, ReleaseHold } from '../../application/booking/hold-orders.js';
import { LAPSE_GRACE_MS, RecordOrderLapses } from '../../application/booking/record-order-lapses.js';
import { OperatorOrders } from '../../application/operator/manage-orders.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import type { Order } from '../../domain/booking/order.js';
import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import type { BusSchedule } from '../../domain/catalogue/catalogue.js';
import type { CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { keyRecordOf, unique } from '../fixtures.js';
import {
  TestClock,
  buildOperator,
  buildSchedule,
  buildTransferRoute,
  dateAhead,
  reasonOf,
  tripIdOf,
  type TestTransferRoute,
} from '../fixtures.js';
import { listenAs, type EmittedEvents, type EventSeen } from './events.js';

/** The storage the booking flow runs on: one adapter family (memory, or PostgreSQL). */
export interface BookingStores {
  readonly quotes: QuoteRepo;
  readonly orders: OrderRepo;
  readonly inventory: TripInventory;
  readonly tariffs: TariffReader;
  readonly catalogue: CatalogueWriter;
  readonly directory: AgentDirectory;
  /** The units of work the use cases write in, on these stores. */
  readonly unitOfWork: UnitOfWork;
  /** The agents' accounts the orders' money moves in; absent: a fresh memory set (every agent invoiced). */
  readonly accounts?: AgentAccounts;
}

const memoryAccounts = new WeakMap<BookingStores, AgentAccounts>();
/** The stores' accounts, or one memory set per store set. */
const accounts = (st: BookingStores): AgentAccounts => {
  if (st.accounts !== undefined) return st.accounts;
  const found = memoryAccounts.get(st) ?? new MemoryAgentAccounts();
  memoryAccounts.set(st, found);
  return found;
};

const HOUR = 3_600_000;

/**
 * Every rule of the booking flow, run through the use cases over one adapter family, so that
 * memory and PostgreSQL decide alike; `concurrent()` says whether the store shows real
 * contention (false on PGlite, which runs one statement at a time).
 */
export function bookingContract(
  name: string,
  make: () => Promise<BookingStores>,
  options: {
    concurrent: () => Promise<boolean>;
    cleanup?: () => Promise<void>;
    /** The webhook store and outbox reader the stores of the last `make()` record into; without it the event cases are skipped. */
    events?: () => Promise<EmittedEvents>;
  },
): void {
  describe(`booking flow contract: ${name}`, () => {
    after(async () => {
      await options.cleanup?.();
    });
    let s: BookingStores;
    let clock: TestClock;
    let uc: ReturnType<typeof useCases>;
    let date: string;

    const useCases = (st: BookingStores, c: TestClock) => {
      const ids = new TimeSortableIds();
      const policy = { ttlSeconds: 900 };
      return {
        listTrips: new ListTrips(st.tariffs, st.inventory, c),
        quoteTransfer: new QuoteTransfer(st.tariffs, st.inventory, st.quotes, ids, c, policy),
        quoteBus: new QuoteBusTrip(st.tariffs, st.inventory, st.quotes, ids, c, policy),
        getQuote: new GetQuote(st.quotes),
        place: new PlaceOrder(st.quotes, st.orders, st.tariffs, ids, c, st.unitOfWork, accounts(st)),
        getOrder: new GetOrder(st.orders, c),
        list: new ListOrders(st.orders, c),
        cancel: new CancelOrder(st.orders, c, st.unitOfWork, accounts(st)),
        confirm: new ConfirmHold(st.orders, c, st.unitOfWork, accounts(st)),
        release: new ReleaseHold(st.orders, c, st.unitOfWork, accounts(st)),
        operator: new OperatorOrders(st.orders, st.directory, c, st.unitOfWork, accounts(st)),
        lapses: new RecordOrderLapses(st.orders, c, accounts(st)),
      };
    };

    /** A channel, an agent on it and a key, stored; returned as the principal the key resolves to. */
    const agent = async (
      over: { markupBps?: number; discountBps?: number; channelCode?: string; livemode?: boolean } = {},
    ): Promise<AgentPrincipal> => {
      const code = over.channelCode ?? `C-${unique()}`;
      let channel = await s.directory.findChannel(code);
      if (channel === null) {
        channel = {
          code,
          name: 'Channel',
          currency: 'THB',
          markupBps: over.markupBps ?? 0,
          freeCancellationHours: 24,
          lateCancellationFeeBps: 5000,
          maxHoldMinutes: 30,
        };
        await s.directory.createChannel(channel);
      }
      const a = await s.directory.createAgent({
        id: `agt_${unique()}`,
        name: 'Agent',
        channelCode: code,
        entitlements: ['airport-transfer', 'express-bus'],
        discountBps: over.discountBps ?? 0,
        createdAt: new Date(),
        ...(over.livemode === undefined ? {} : { livemode: over.livemode }),
      });
      const keyId = await newKey(a.id);
      return {
        kind: 'agent',
        agentId: a.id,
        agentName: a.name,
        keyId,
        key: { id: keyId, prefix: 'pbk_test', createdAt: new Date(), expiresAt: null, scopes: ['*'], allowedIps: [] },
        channel,
        entitlements: a.entitlements,
        discountBps: a.discountBps,
        livemode: a.livemode,
      };
    };
    const newKey = async (agentId: string): Promise<string> => {
      const id = `key_${unique()}`;
      await s.directory.insertKey(keyRecordOf(agentId, { id, createdAt: new Date() }));
      return id;
    };
    const contact = { name: 'Somchai P.', email: 'somchai@example.com' };
    const busQuote = async (who: AgentPrincipal, schedule: BusSchedule, passengers = 1): Promise<Quote> =>
      uc.quoteBus.execute(who, { tripId: tripIdOf(schedule, date), passengers });

    /** A transfer quote on a test route at `pickupAt` (sedan, one passenger unless told). */
    const transferQuote = (who: AgentPrincipal, route: TestTransferRoute, pickupAt: Date, vehicleClass = 'sedan'): Promise<Quote> =>
      uc.quoteTransfer.execute(who, {
        fromLocationId: route.fromLocationId,
        toLocationId: route.toLocationId,
        pickupAt,
        passengers: 1,
        vehicleClass,
      });
    /** 10:00 Bangkok time on the contract's date (03:00 UTC). */
    const pickupAtTen = (): Date => new Date(`${date}T03:00:00.000Z`);

    beforeEach(async () => {
      s = await make();
      await s.catalogue.load(THAILAND_CATALOGUE);
      clock = new TestClock();
      uc = useCases(s, clock);
      date = dateAhead(30);
    });

    describe('trips and quotes', () => {
      it('when trips are listed, then each departure of the day comes with seats left and the caller’s price per seat', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 7, departureTimes: ['10:00', '08:15'], baseAmount: 18_000 });
        const who = await agent({ markupBps: 1_000, discountBps: 500 });
        const trips = (await uc.listTrips.execute(who, { fromCityId: 'cty_bangkok', toCityId: 'cty_pattaya', date })).filter(
          (t) => t.scheduleId === schedule.id,
        );
        expect(trips.map((t) => t.id)).to.deep.equal([tripIdOf(schedule, date, '08:15'), tripIdOf(schedule, date, '10:00')]);
        expect(trips[0]!.departsAt.toISOString()).to.equal(`${date}T01:15:00.000Z`);
        // 180.00 THB + 10 % − 5 % = 188.10 THB
        expect(trips[0]).to.deep.include({ seatsLeft: 7, price: { amount: 18_810, currency: 'THB' } });
      });

      it('when a bus quote is made, then it records agent, channel, key and the price for all passengers, valid for the TTL', async () => {
        const schedule = await buildSchedule(s.catalogue);
        const who = await agent({ markupBps: 250 });
        const quote = await busQuote(who, schedule, 3);
        expect(quote).to.deep.include({ agentId: who.agentId, channelCode: who.channel.code, keyId: who.keyId, product: 'express-bus' });
        expect(quote.price).to.deep.equal({ amount: 3 * 18_450, currency: 'THB' });
        expect(quote.expiresAt.getTime() - quote.createdAt.getTime()).to.equal(900_000);
        expect(await uc.getQuote.execute(who, quote.id)).to.deep.equal(quote);
      });

      it('when a trip id is unknown or names no departure of its schedule, then trip-not-found', async () => {
        const schedule = await buildSchedule(s.catalogue);
        const who = await agent();
        for (const tripId of [
          'trp_nothing',
          'garbage',
          tripIdOf(schedule, date, '10:01'),
          `trp_test_${unique().toLowerCase()}_202701010300`,
        ]) {
          expect(await reasonOf(uc.quoteBus.execute(who, { tripId, passengers: 1 })), tripId).to.equal('trip-not-found');
        }
      });

      it('when the trip has departed, then trip-departed; when fewer seats are left than passengers, then sold-out', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 2 });
        const who = await agent();
        expect(await reasonOf(uc.quoteBus.execute(who, { tripId: tripIdOf(schedule, date), passengers: 3 }))).to.equal('sold-out');
        clock.set(new Date(Date.parse(`${date}T12:00:00.000Z`)));
        expect(await reasonOf(busQuote(who, schedule))).to.equal('trip-departed');
      });

      it('when a transfer is quoted without a vehicle class, then the smallest class that carries everybody is priced', async () => {
        const who = await agent({ markupBps: 1_000, discountBps: 500 });
        const pickupAt = new Date(Date.now() + 48 * HOUR);
        const q = await uc.quoteTransfer.execute(who, {
          fromLocationId: 'loc_bkk',
          toLocationId: 'loc_bkk_silom',
          pickupAt,
          passengers: 4,
        });
        // SUV between BKK and BKK-CITY: 1 560.00 THB + 10 % − 5 % = 1 630.20 THB
        expect(q.details).to.deep.include({ vehicleClass: 'suv', passengers: 4, pickupAt: pickupAt.toISOString() });
        expect(q.price).to.deep.equal({ amount: 163_020, currency: 'THB' });
        const van = await uc.quoteTransfer.execute(who, {
          fromLocationId: 'loc_bkk_silom',
          toLocationId: 'loc_bkk',
          pickupAt,
          passengers: 1,
          vehicleClass: 'van',
        });
        expect(van.details).to.deep.include({ vehicleClass: 'van' });
      });

      it('when a transfer names an unknown location, has no fare, or a past pickup, then location-not-found, no-fare, invalid-request', async () => {
        const who = await agent();
        const later = new Date(Date.now() + 48 * HOUR);
        expect(
          await reasonOf(
            uc.quoteTransfer.execute(who, { fromLocationId: 'loc_nowhere', toLocationId: 'loc_bkk', pickupAt: later, passengers: 1 }),
          ),
        ).to.equal('location-not-found');
        expect(
          await reasonOf(
            uc.quoteTransfer.execute(who, { fromLocationId: 'loc_bkk', toLocationId: 'loc_hkt_patong', pickupAt: later, passengers: 1 }),
          ),
        ).to.equal('no-fare');
        expect(
          await reasonOf(
            uc.quoteTransfer.execute(who, {
              fromLocationId: 'loc_bkk',
              toLocationId: 'loc_bkk_silom',
              pickupAt: new Date(Date.now() - HOUR),
              passengers: 1,
            }),
          ),
        ).to.equal('invalid-request');
        expect(
          await reasonOf(
            uc.quoteTransfer.execute(who, { fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt: later, passengers: 12 }),
          ),
        ).to.equal('no-fare');
      });

      it('when trips are listed and either product is quoted, then each names its operator and how it confirms', async () => {
        const who = await agent();
        const onRequest = buildOperator({ confirmation: 'on-request', confirmationWindowMinutes: 90 });
        const schedule = await buildSchedule(s.catalogue, { operator: onRequest });
        const [trip] = (await uc.listTrips.execute(who, { fromCityId: 'cty_bangkok', toCityId: 'cty_pattaya', date })).filter(
          (t) => t.scheduleId === schedule.id,
        );
        expect(trip).to.deep.include({ operator: { code: onRequest.code, name: onRequest.name }, confirmation: 'on-request' });
        const bus = await busQuote(who, schedule);
        expect(bus).to.deep.include({ operator: { code: onRequest.code, name: onRequest.name }, confirmation: 'on-request' });
        expect((bus.details as { operator: string }).operator).to.equal(onRequest.name);
        const pickupAt = new Date(Date.now() + 48 * HOUR);
        const transferQuote = (fromLocationId: string, toLocationId: string) =>
          uc.quoteTransfer.execute(who, { fromLocationId, toLocationId, pickupAt, passengers: 1 });
        const instant = await transferQuote('loc_bkk', 'loc_bkk_h_riverside');
        expect(instant).to.deep.include({
          operator: { code: 'SIAM-AIRPORT-TRANSFERS', name: 'Siam Airport Transfers' },
          confirmation: 'instant',
        });
        const phuket = await transferQuote('loc_hkt', 'loc_hkt_patong');
        expect(phuket).to.deep.include({
          operator: { code: 'ANDAMAN-COAST-TRANSFERS', name: 'Andaman Coast Transfers' },
          confirmation: 'on-request',
        });
        expect(await uc.getQuote.execute(who, phuket.id)).to.deep.equal(phuket);
      });

      it('when the agent is not entitled to the product, then not-entitled', async () => {
        const who = { ...(await agent()), entitlements: ['airport-transfer' as const] };
        const schedule = await buildSchedule(s.catalogue);
        expect(await reasonOf(busQuote(who, schedule))).to.equal('not-entitled');
        expect(await reasonOf(uc.listTrips.execute(who, { fromCityId: 'cty_bangkok', toCityId: 'cty_pattaya', date }))).to.equal(
          'not-entitled',
        );
      });
    });

    describe('orders', () => {
      it('when a quote is booked, then the order keeps agent, channel, key, price and takes the seats', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 5 });
        const who = await agent({ markupBps: 100 });
        const quote = await busQuote(who, schedule, 2);
        const order = await uc.place.execute(who, {
          quoteId: quote.id,
          contact,
          passengers: [{ name: 'A' }, { name: 'B' }],
          agentReference: 'REF-1',
        });
        expect(order).to.deep.include({
          status: 'CONFIRMED',
          agentId: who.agentId,
          channelCode: who.channel.code,
          keyId: who.keyId,
          quoteId: quote.id,
          agentReference: 'REF-1',
        });
        expect(order.price).to.deep.equal(quote.price);
        expect(order.contact).to.deep.equal({ ...contact, phone: null });
        expect(await uc.getOrder.execute(who, order.id)).to.deep.equal(order);
        const left = await s.inventory.seatsLeft([{ tripId: tripIdOf(schedule, date), capacity: 5 }], clock.now(), true);
        expect(left.get(tripIdOf(schedule, date))).to.equal(3);
      });

      it('when a quote is booked twice, then quote-already-booked and one order exists', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 5 });
        const who = await agent();
        const quote = await busQuote(who, schedule);
        await uc.place.execute(who, { quoteId: quote.id, contact });
        expect(await reasonOf(uc.place.execute(who, { quoteId: quote.id, contact }))).to.equal('quote-already-booked');
        expect((await uc.list.execute(who, { limit: 10 })).data).to.have.length(1);
        expect(
          (await s.inventory.seatsLeft([{ tripId: quote.seats!.tripId, capacity: 5 }], clock.now(), true)).get(quote.seats!.tripId),
        ).to.equal(4);
      });

      it('when an order is retried with the same idempotency key, then the first order comes back and nothing is booked twice', async () => {
        const schedule = await buildSchedule(s.catalogue);
        const who = await agent();
        const quote = await busQuote(who, schedule);
        const first = await uc.place.execute(who, { quoteId: quote.id, contact, idempotencyKey: 'retry-1' });
        const again = await uc.place.execute(who, { quoteId: quote.id, contact, idempotencyKey: 'retry-1' });
        expect(again.id).to.equal(first.id);
        // Straight at the store, as a retry that raced past the lookup would arrive.
        const raced = await s.orders.place({ ...first, id: `ord_${unique()}` });
        expect(raced.id).to.equal(first.id);
        const other = await busQuote(who, schedule);
        expect(await reasonOf(uc.place.execute(who, { quoteId: other.id, contact, idempotencyKey: 'retry-1' }))).to.equal(
          'idempotency-key-reused',
        );
      });

      it('when a retry comes after its quote expired, then the order its first attempt placed comes back, not quote-expired', async () => {
        const who = await agent();
        const quote = await busQuote(who, await buildSchedule(s.catalogue));
        const first = await uc.place.execute(who, { quoteId: quote.id, contact, idempotencyKey: 'late-retry' });
        clock.advance(900_000);
        const again = await uc.place.execute(who, { quoteId: quote.id, contact, idempotencyKey: 'late-retry' });
        expect(again.id).to.equal(first.id);
        // Without the key, the same request is the refusal it now is.
        expect(await reasonOf(uc.place.execute(who, { quoteId: quote.id, contact }))).to.equal('quote-expired');
      });

      it('when the seats are gone, then sold-out and no order is stored', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 3 });
        const who = await agent();
        const a = await busQuote(who, schedule, 2);
        const b = await busQuote(who, schedule, 2);
        await uc.place.execute(who, { quoteId: a.id, contact });
        expect(await reasonOf(uc.place.execute(who, { quoteId: b.id, contact }))).to.equal('sold-out');
        const page = await uc.list.execute(who, { limit: 10 });
        expect(page.data.map((o) => o.quoteId)).to.deep.equal([a.id]);
        expect((await s.inventory.seatsLeft([{ tripId: a.seats!.tripId, capacity: 3 }], clock.now(), true)).get(a.seats!.tripId)).to.equal(
          1,
        );
      });

      it('when the quote has expired, then quote-expired', async () => {
        const who = await agent();
        const quote = await busQuote(who, await buildSchedule(s.catalogue));
        clock.advance(900_000);
        expect(await reasonOf(uc.place.execute(who, { quoteId: quote.id, contact }))).to.equal('quote-expired');
      });

      it('when the key now resolves to another channel than the quote’s, then quote-channel-mismatch', async () => {
        const who = await agent();
        const quote = await busQuote(who, await buildSchedule(s.catalogue));
        const moved = { ...who, channel: { ...who.channel, code: `C-${unique()}` } };
        expect(await reasonOf(uc.place.execute(moved, { quoteId: quote.id, contact }))).to.equal('quote-channel-mismatch');
      });

      it('when a sandbox agent’s quote is stored, then it reads back livemode false, and a live agent’s true', async () => {
        const schedule = await buildSchedule(s.catalogue);
        for (const livemode of [false, true]) {
          const who = await agent({ livemode });
          const quote = await busQuote(who, schedule);
          expect((await s.quotes.findForAgent(who.agentId, quote.id))?.livemode).to.equal(livemode);
          expect((await uc.getQuote.execute(who, quote.id)).livemode).to.equal(livemode);
        }
      });

      it('when another agent reads or books a quote, or reads or cancels an order, then quote-not-found and order-not-found', async () => {
        const owner = await agent();
        const other = await agent({ channelCode: owner.channel.code });
        const quote = await busQuote(owner, await buildSchedule(s.catalogue));
        expect(await reasonOf(uc.getQuote.execute(other, quote.id))).to.equal('quote-not-found');
        expect(await s.quotes.findForAgent(other.agentId, quote.id)).to.equal(null);
        expect(await reasonOf(uc.place.execute(other, { quoteId: quote.id, contact }))).to.equal('quote-not-found');
        const order = await uc.place.execute(owner, { quoteId: quote.id, contact });
        expect(await reasonOf(uc.getOrder.execute(other, order.id))).to.equal('order-not-found');
        expect(await reasonOf(uc.cancel.execute(other, order.id))).to.equal('order-not-found');
        expect(await s.orders.change({ agentId: other.agentId }, order.id, (o) => ({ ...o, status: 'CANCELLED' }), new Date())).to.equal(
          null,
        );
        expect((await uc.getOrder.execute(owner, order.id)).status).to.equal('CONFIRMED');
        expect((await uc.list.execute(other, { limit: 100 })).data).to.deep.equal([]);
        expect(await reasonOf(uc.getOrder.execute(owner, `ord_${unique()}`))).to.equal('order-not-found');
      });

      it('when orders are listed, then newest first, page by page, filtered by status', async () => {
        const schedule = await buildSchedule(s.catalogue);
        const who = await agent();
        const placed = [];
        for (let i = 0; i < 5; i++) {
          placed.push(await uc.place.execute(who, { quoteId: (await busQuote(who, schedule)).id, contact }));
          clock.advance(1);
        }
        await uc.cancel.execute(who, placed[1]!.id);
        const first = await uc.list.execute(who, { limit: 2 });
        const second = await uc.list.execute(who, { limit: 2, cursor: first.nextCursor! });
        const third = await uc.list.execute(who, { limit: 2, cursor: second.nextCursor! });
        expect([...first.data, ...second.data, ...third.data].map((o) => o.id)).to.deep.equal(placed.map((o) => o.id).reverse());
        expect(third.nextCursor).to.equal(null);
        const cancelled = await uc.list.execute(who, { limit: 10, status: 'CANCELLED' });
        expect(cancelled.data.map((o) => o.id)).to.deep.equal([placed[1]!.id]);
        expect((await uc.list.execute(who, { limit: 10, status: 'CONFIRMED' })).data).to.have.length(4);
        expect(await reasonOf(uc.list.execute(who, { limit: 10, cursor: 'not-a-cursor' }))).to.equal('invalid-request');
      });
    });

    describe('holds and operators', () => {
      const MINUTE = 60_000;
      const onRequest = (vehicles = 1, window = 60) =>
        buildTransferRoute(s.catalogue, { vehicles, operator: { confirmation: 'on-request', confirmationWindowMinutes: window } });

      it('when a quote is held, then it is ON_HOLD for 900 s by default, at most the channel’s most, never past the start, and the quote is used up', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 3 });
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: {} });
        expect(held.status).to.equal('ON_HOLD');
        expect(held.contact).to.equal(null);
        expect(held.holdExpiresAt!.getTime() - clock.now().getTime()).to.equal(900_000);
        const quote = await transferQuote(who, route, pickupAtTen());
        const long = await uc.place.execute(who, { quoteId: quote.id, hold: { seconds: 86_400 } });
        expect(long.holdExpiresAt!.getTime() - clock.now().getTime()).to.equal(30 * MINUTE);
        expect(await reasonOf(uc.place.execute(who, { quoteId: quote.id, contact }))).to.equal('quote-already-booked');
        const soon = await transferQuote(who, route, new Date(clock.now().getTime() + 10 * MINUTE));
        const capped = await uc.place.execute(who, { quoteId: soon.id, hold: { seconds: 1_200 } });
        expect(capped.holdExpiresAt!.getTime()).to.equal(soon.startsAt.getTime());
      });

      it('when a hold lapses, then every read shows EXPIRED and its vehicle sells at that instant; the job records it once', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 1 });
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: { seconds: 600 } });
        expect(await reasonOf(transferQuote(who, route, pickupAtTen()))).to.equal('sold-out');
        clock.advance(600_000 - 1);
        expect((await uc.getOrder.execute(who, held.id)).status).to.equal('ON_HOLD');
        expect(await s.inventory.vehiclesLeft(held.vehicle!, clock.now(), true)).to.equal(0);
        clock.advance(1);
        expect((await uc.getOrder.execute(who, held.id)).status).to.equal('EXPIRED');
        expect((await uc.list.execute(who, { status: 'EXPIRED', limit: 10 })).data.map((o) => o.id)).to.deep.equal([held.id]);
        expect((await uc.list.execute(who, { status: 'ON_HOLD', limit: 10 })).data).to.deep.equal([]);
        expect(await s.inventory.vehiclesLeft(held.vehicle!, clock.now(), true)).to.equal(1);
        const next = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        expect(next.status).to.equal('CONFIRMED');
        expect(await reasonOf(uc.confirm.execute(who, held.id, { contact }))).to.equal('hold-expired');
        clock.advance(LAPSE_GRACE_MS);
        // Other cases' lapses on a shared database are recorded too: at least this one, and all at once.
        expect(await uc.lapses.execute()).to.be.at.least(1);
        expect(await uc.lapses.execute()).to.equal(0);
        expect((await s.orders.find({ agentId: who.agentId }, held.id))!.status).to.equal('EXPIRED');
      });

      it('when a hold is confirmed before it lapses, then CONFIRMED with the contact sent now; a confirm is refused otherwise', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 2 });
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: {} });
        expect(await reasonOf(uc.confirm.execute(who, held.id, {}))).to.equal('invalid-request');
        clock.advance(899_000);
        const confirmed = await uc.confirm.execute(who, held.id, { contact });
        expect(confirmed).to.deep.include({ status: 'CONFIRMED', contact: { ...contact, phone: null } });
        expect(await reasonOf(uc.confirm.execute(who, held.id, { contact }))).to.equal('order-not-on-hold');
        expect(await reasonOf(uc.release.execute(who, held.id))).to.equal('order-not-on-hold');
        clock.advance(HOUR);
        expect((await uc.getOrder.execute(who, held.id)).status).to.equal('CONFIRMED');
        const other = await agent({ channelCode: who.channel.code });
        expect(await reasonOf(uc.confirm.execute(other, held.id, { contact }))).to.equal('order-not-found');
        expect(await reasonOf(uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id }))).to.equal(
          'invalid-request',
        );
      });

      it('when a hold is released, then RELEASED with its vehicle free; a second release answers it unchanged', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 1 });
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: {} });
        const released = await uc.release.execute(who, held.id);
        expect(released).to.deep.include({ status: 'RELEASED', releaseReason: 'agent' });
        expect(await uc.release.execute(who, held.id)).to.deep.equal(released);
        expect(await s.inventory.vehiclesLeft(held.vehicle!, clock.now(), true)).to.equal(1);
        expect(await reasonOf(uc.cancel.execute(who, held.id))).to.equal('order-not-cancellable');
        expect(await reasonOf(uc.confirm.execute(who, held.id, { contact }))).to.equal('order-not-on-hold');
      });

      it('when a bus hold lapses, then its seats are free at once', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 2 });
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await busQuote(who, schedule, 2)).id, hold: { seconds: 60 } });
        const trip = [{ tripId: held.seats!.tripId, capacity: 2 }];
        expect((await s.inventory.seatsLeft(trip, clock.now(), true)).get(held.seats!.tripId)).to.equal(0);
        clock.advance(60_000);
        expect((await s.inventory.seatsLeft(trip, clock.now(), true)).get(held.seats!.tripId)).to.equal(2);
        expect((await uc.place.execute(who, { quoteId: (await busQuote(who, schedule, 2)).id, contact })).status).to.equal('CONFIRMED');
      });

      it('when the operator confirms on request, then PENDING until its deadline; it confirms with its reference, only its own orders', async () => {
        const route = await onRequest(1, 60);
        const who = await agent();
        const pending = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        expect(pending.status).to.equal('PENDING');
        expect(pending.confirmationDeadline!.getTime() - clock.now().getTime()).to.equal(60 * MINUTE);
        expect(await reasonOf(transferQuote(who, route, pickupAtTen()))).to.equal('sold-out');
        const stranger = (await onRequest()).operator;
        expect(await reasonOf(uc.operator.confirm(stranger, pending.id, 'X'))).to.equal('order-not-found');
        expect((await uc.operator.list(stranger, { limit: 10 })).data).to.deep.equal([]);
        expect((await uc.operator.list(route.operator, { status: 'PENDING', limit: 10 })).data.map((o) => o.id)).to.deep.equal([
          pending.id,
        ]);
        const confirmed = await uc.operator.confirm(route.operator, pending.id, 'OP-778');
        expect(confirmed).to.deep.include({ status: 'CONFIRMED', operatorReference: 'OP-778' });
        expect(await reasonOf(uc.operator.confirm(route.operator, pending.id, 'OP-779'))).to.equal('order-not-pending');
        expect((await uc.getOrder.execute(who, pending.id)).operatorReference).to.equal('OP-778');
        const cancelled = await uc.operator.cancel(route.operator, pending.id);
        expect(cancelled).to.deep.include({ status: 'CANCELLED', cancelledBy: 'operator' });
        expect(cancelled.refund).to.deep.equal(pending.price);
        expect(cancelled.fee!.amount).to.equal(0);
        expect(await s.inventory.vehiclesLeft(pending.vehicle!, clock.now(), true)).to.equal(1);
      });

      it('when the operator rejects, or its deadline passes, then REJECTED and the vehicle free; an agent cancels a pending order in full', async () => {
        const route = await onRequest(1, 60);
        const who = await agent();
        const first = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        const rejected = await uc.operator.reject(route.operator, first.id, 'pickup-not-serviceable');
        expect(rejected).to.deep.include({ status: 'REJECTED', rejectionReason: 'pickup-not-serviceable' });
        const second = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        clock.advance(60 * MINUTE);
        expect(await uc.getOrder.execute(who, second.id)).to.deep.include({ status: 'REJECTED', rejectionReason: 'operator-timeout' });
        expect(await reasonOf(uc.operator.confirm(route.operator, second.id, 'LATE'))).to.equal('order-not-pending');
        const third = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        const cancelled = await uc.cancel.execute(who, third.id);
        expect(cancelled.refund).to.deep.equal(third.price);
        expect(cancelled.fee!.amount).to.equal(0);
        clock.advance(LAPSE_GRACE_MS);
        expect(await uc.lapses.execute()).to.be.at.least(1);
        expect((await s.orders.find({ agentId: who.agentId }, second.id))!.status).to.equal('REJECTED');
      });

      it('when a held hold is confirmed with an on-request operator, then it becomes PENDING with its deadline', async () => {
        const route = await onRequest(1, 90);
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: {}, contact });
        clock.advance(MINUTE);
        const pending = await uc.confirm.execute(who, held.id, {});
        expect(pending.status).to.equal('PENDING');
        expect(pending.confirmationDeadline!.getTime() - clock.now().getTime()).to.equal(90 * MINUTE);
      });

      it('when the key that made a hold is reported leaked, then the hold is RELEASED (key-leaked) at once', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 1 });
        const who = await agent();
        const held = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: {} });
        await s.directory.revokeKey(who.keyId, 'leaked', clock.now());
        expect(await uc.getOrder.execute(who, held.id)).to.deep.include({ status: 'RELEASED', releaseReason: 'key-leaked' });
        expect(await s.inventory.vehiclesLeft(held.vehicle!, clock.now(), true)).to.equal(1);
      });

      it('when 20 holds of the last vehicle arrive at once, then exactly one is held and the others are sold-out', async function () {
        if (!(await options.concurrent())) this.skip();
        const route = await buildTransferRoute(s.catalogue, { vehicles: 1 });
        const who = await agent();
        const quotes = await Promise.all(Array.from({ length: 20 }, () => transferQuote(who, route, pickupAtTen())));
        const outcomes = await Promise.all(quotes.map((q) => reasonOf(uc.place.execute(who, { quoteId: q.id, hold: {} }))));
        expect(outcomes.filter((o) => o === 'resolved')).to.have.length(1);
        expect(outcomes.filter((o) => o === 'sold-out')).to.have.length(19);
      });

      it('when several instances record lapses at once, then each lapsed order is recorded exactly once', async function () {
        if (!(await options.concurrent())) this.skip();
        const route = await buildTransferRoute(s.catalogue, { vehicles: 30 });
        const who = await agent();
        const seen =
          options.events === undefined
            ? null
            : await listenAs(await options.events(), { kind: 'agent', id: who.agentId }, ['order.expired']);
        for (let i = 0; i < 12; i++) {
          await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, hold: { seconds: 60 } });
        }
        clock.advance(60_000 + LAPSE_GRACE_MS);
        const counts = await Promise.all([0, 1, 2].map(() => s.orders.recordLapses(new Date(clock.now().getTime() - LAPSE_GRACE_MS), 5)));
        await uc.lapses.execute();
        const mine = (await uc.list.execute(who, { limit: 20 })).data;
        expect(counts.reduce((a, b) => a + b, 0)).to.be.at.most(15);
        for (const o of mine) expect((await s.orders.find({ agentId: who.agentId }, o.id))!.status).to.equal('EXPIRED');
        if (seen !== null) {
          const expired = await seen();
          expect(expired).to.have.length(12);
          expect(new Set(expired.map((e) => e.id)).size).to.equal(12);
        }
      });
    });

    describe('transfer stock', () => {
      it('when every vehicle of a class in a pickup hour is booked, then the next order and quote are sold-out; another class or hour still sells', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 2 });
        const who = await agent();
        const quotes = [];
        for (let i = 0; i < 3; i++) quotes.push(await transferQuote(who, route, new Date(pickupAtTen().getTime() + i * 20 * 60_000)));
        await uc.place.execute(who, { quoteId: quotes[0]!.id, contact });
        await uc.place.execute(who, { quoteId: quotes[1]!.id, contact });
        expect(await reasonOf(uc.place.execute(who, { quoteId: quotes[2]!.id, contact }))).to.equal('sold-out');
        expect((await uc.list.execute(who, { limit: 10 })).data.map((o) => o.quoteId).sort()).to.deep.equal(
          [quotes[0]!.id, quotes[1]!.id].sort(),
        );
        expect(await reasonOf(transferQuote(who, route, new Date(pickupAtTen().getTime() + 59 * 60_000)))).to.equal('sold-out');
        expect(await s.inventory.vehiclesLeft(quotes[0]!.vehicle!, clock.now(), true)).to.equal(0);
        // The next hour, and another class in the same hour, have their own vehicles.
        const nextHour = await transferQuote(who, route, new Date(pickupAtTen().getTime() + HOUR));
        expect((await uc.place.execute(who, { quoteId: nextHour.id, contact })).status).to.equal('CONFIRMED');
        const van = await transferQuote(who, route, pickupAtTen(), 'van');
        expect((await uc.place.execute(who, { quoteId: van.id, contact })).status).to.equal('CONFIRMED');
      });

      it('when a transfer order is cancelled, then its vehicle is free for another order', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 1 });
        const who = await agent();
        const first = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        const waiting = await transferQuote(who, route, pickupAtTen()).catch(() => null);
        expect(waiting).to.equal(null);
        await uc.cancel.execute(who, first.id);
        expect(await s.inventory.vehiclesLeft(first.vehicle!, clock.now(), true)).to.equal(1);
        const second = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, pickupAtTen())).id, contact });
        expect(second.status).to.equal('CONFIRMED');
        expect(await s.inventory.vehiclesLeft(first.vehicle!, clock.now(), true)).to.equal(0);
      });

      it('when pickups fall in one local hour of the operator but in two UTC hours, then they share its vehicles', async () => {
        // India is 5 h 30 min ahead of UTC: 10:10 and 10:50 local are 04:40 and 05:20 UTC.
        const route = await buildTransferRoute(s.catalogue, { vehicles: 1, operator: { timezone: 'Asia/Kolkata' } });
        const who = await agent();
        const tenTen = new Date(`${date}T04:40:00.000Z`);
        const order = await uc.place.execute(who, { quoteId: (await transferQuote(who, route, tenTen)).id, contact });
        expect(order.vehicle).to.deep.equal({
          operatorCode: route.operator.code,
          vehicleClass: 'sedan',
          pickupHour: new Date(`${date}T04:30:00.000Z`),
        });
        expect(await reasonOf(transferQuote(who, route, new Date(`${date}T05:20:00.000Z`)))).to.equal('sold-out');
        expect(await reasonOf(transferQuote(who, route, new Date(`${date}T05:30:00.000Z`)))).to.equal('resolved');
      });

      it('when the operator has no fleet of a class, then quotes of that class are sold-out', async () => {
        const route = await buildTransferRoute(s.catalogue, { vehicles: 0 });
        const who = await agent();
        expect(await reasonOf(transferQuote(who, route, pickupAtTen()))).to.equal('sold-out');
      });
    });

    describe('cancellation', () => {
      it('when an order is cancelled, then it is CANCELLED with a time, its seats come back, and a second cancel is order-already-cancelled', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 4 });
        const who = await agent();
        const order = await uc.place.execute(who, { quoteId: (await busQuote(who, schedule, 3)).id, contact });
        const tripId = tripIdOf(schedule, date);
        expect((await s.inventory.seatsLeft([{ tripId, capacity: 4 }], clock.now(), true)).get(tripId)).to.equal(1);
        const cancelled = await uc.cancel.execute(who, order.id);
        expect(cancelled.status).to.equal('CANCELLED');
        expect(cancelled.cancelledAt?.toISOString()).to.equal(clock.now().toISOString());
        expect((await s.inventory.seatsLeft([{ tripId, capacity: 4 }], clock.now(), true)).get(tripId)).to.equal(4);
        expect(await reasonOf(uc.cancel.execute(who, order.id))).to.equal('order-already-cancelled');
        expect((await s.inventory.seatsLeft([{ tripId, capacity: 4 }], clock.now(), true)).get(tripId)).to.equal(4);
      });

      it('when the key that placed the order is revoked as leaked, then booked-with-leaked-key whatever key asks; rotated keys do not freeze', async () => {
        const schedule = await buildSchedule(s.catalogue);
        const who = await agent();
        const leakedOrder = await uc.place.execute(who, { quoteId: (await busQuote(who, schedule)).id, contact });
        const secondKey = await newKey(who.agentId);
        const rotatedOrder = await uc.place.execute({ ...who, keyId: secondKey }, { quoteId: (await busQuote(who, schedule)).id, contact });
        await s.directory.revokeKey(who.keyId, 'leaked', new Date());
        await s.directory.revokeKey(secondKey, 'rotated', new Date());
        const thirdKey = await newKey(who.agentId);
        const caller = { ...who, keyId: thirdKey };
        expect(await reasonOf(uc.cancel.execute(caller, leakedOrder.id))).to.equal('booked-with-leaked-key');
        expect((await uc.getOrder.execute(caller, leakedOrder.id)).status).to.equal('CONFIRMED');
        expect((await uc.cancel.execute(caller, rotatedOrder.id)).status).to.equal('CANCELLED');
      });

      it('when the departure has passed, then cancellation-window-closed', async () => {
        const who = await agent();
        const order = await uc.place.execute(who, { quoteId: (await busQuote(who, await buildSchedule(s.catalogue))).id, contact });
        clock.set(new Date(Date.parse(`${date}T03:00:00.000Z`)));
        expect(await reasonOf(uc.cancel.execute(who, order.id))).to.equal('cancellation-window-closed');
      });
    });

    describe('under concurrency', () => {
      beforeEach(async function () {
        // PGlite runs one statement at a time: there is no contention to show there.
        if (!(await options.concurrent())) this.skip();
      });

      it('when 20 bookings of one quote arrive at once, then exactly one order exists', async () => {
        const who = await agent();
        const quote = await busQuote(who, await buildSchedule(s.catalogue, { seatCapacity: 40 }));
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, () => reasonOf(uc.place.execute(who, { quoteId: quote.id, contact }))),
        );
        expect(outcomes.filter((o) => o === 'resolved')).to.have.length(1);
        expect(outcomes.filter((o) => o === 'quote-already-booked')).to.have.length(19);
        expect((await uc.list.execute(who, { limit: 100 })).data).to.have.length(1);
        expect(
          (await s.inventory.seatsLeft([{ tripId: quote.seats!.tripId, capacity: 40 }], clock.now(), true)).get(quote.seats!.tripId),
        ).to.equal(39);
      });

      it('when N+10 one-seat orders hit a trip with N seats at once, then exactly N orders and 10 sold-out', async () => {
        const n = 6;
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: n });
        const who = await agent();
        const quotes = [];
        for (let i = 0; i < n + 10; i++) quotes.push(await busQuote(who, schedule));
        const outcomes = await Promise.all(quotes.map((q) => reasonOf(uc.place.execute(who, { quoteId: q.id, contact }))));
        expect(outcomes.filter((o) => o === 'resolved')).to.have.length(n);
        expect(outcomes.filter((o) => o === 'sold-out')).to.have.length(10);
        const tripId = tripIdOf(schedule, date);
        expect((await s.inventory.seatsLeft([{ tripId, capacity: n }], clock.now(), true)).get(tripId)).to.equal(0);
        expect((await uc.list.execute(who, { limit: 100 })).data).to.have.length(n);
      });

      it('when N+1 transfer orders hit an hour with N vehicles of the class at once, then exactly N orders and one sold-out', async () => {
        const n = 5;
        const route = await buildTransferRoute(s.catalogue, { vehicles: n });
        const who = await agent();
        const quotes = [];
        for (let i = 0; i <= n; i++) quotes.push(await transferQuote(who, route, new Date(pickupAtTen().getTime() + i * 60_000)));
        const outcomes = await Promise.all(quotes.map((q) => reasonOf(uc.place.execute(who, { quoteId: q.id, contact }))));
        expect(outcomes.filter((o) => o === 'resolved')).to.have.length(n);
        expect(outcomes.filter((o) => o === 'sold-out')).to.have.length(1);
        expect((await uc.list.execute(who, { limit: 100 })).data).to.have.length(n);
        expect(await s.inventory.vehiclesLeft(quotes[0]!.vehicle!, clock.now(), true)).to.equal(0);
      });

      it('when two cancels of one order arrive at once, then one succeeds and the other is order-already-cancelled; seats come back once', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 3 });
        const who = await agent();
        const order = await uc.place.execute(who, { quoteId: (await busQuote(who, schedule, 2)).id, contact });
        const outcomes = await Promise.all([reasonOf(uc.cancel.execute(who, order.id)), reasonOf(uc.cancel.execute(who, order.id))]);
        expect(outcomes.sort()).to.deep.equal(['order-already-cancelled', 'resolved']);
        const tripId = tripIdOf(schedule, date);
        expect((await s.inventory.seatsLeft([{ tripId, capacity: 3 }], clock.now(), true)).get(tripId)).to.equal(3);
      });
    });
    describe('events it records', () => {
      let who: AgentPrincipal;
      let seen: () => Promise<EventSeen[]>;
      beforeEach(async function () {
        if (options.events === undefined) this.skip();
        who = await agent();
        seen = await listenAs(await options.events(), { kind: 'agent', id: who.agentId }, ['order.confirmed', 'order.cancelled']);
      });
      const confirmed = (o: Order): EventSeen => ({ type: 'order.confirmed', id: o.id });
      const cancelled = (o: Order): EventSeen => ({ type: 'order.cancelled', id: o.id });
      // The test clock stands still, so events of one instant may be listed in any order: compared as members.

      it('when an order is placed and cancelled, then exactly one order.confirmed and one order.cancelled with its id, and nothing for another agent', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 5 });
        const order = await uc.place.execute(who, { quoteId: (await busQuote(who, schedule)).id, contact });
        expect(await seen()).to.have.deep.members([confirmed(order)]);
        await uc.cancel.execute(who, order.id);
        expect(await seen()).to.have.deep.members([confirmed(order), cancelled(order)]);
        const stranger = await agent();
        await uc.place.execute(stranger, { quoteId: (await busQuote(stranger, schedule)).id, contact });
        expect(await seen()).to.have.deep.members([confirmed(order), cancelled(order)]);
      });

      it('when a placement is replayed, by its key or straight at the store, then its one event is not recorded again', async () => {
        const quote = await busQuote(who, await buildSchedule(s.catalogue));
        const first = await uc.place.execute(who, { quoteId: quote.id, contact, idempotencyKey: 'events-1' });
        await uc.place.execute(who, { quoteId: quote.id, contact, idempotencyKey: 'events-1' });
        await s.orders.place({ ...first, id: `ord_${unique()}` });
        expect(await seen()).to.have.deep.members([confirmed(first)]);
      });

      it('when a placement or a cancellation is refused, then no event', async () => {
        const schedule = await buildSchedule(s.catalogue, { seatCapacity: 3 });
        const a = await busQuote(who, schedule, 2);
        const b = await busQuote(who, schedule, 2);
        const expired = await busQuote(who, schedule, 1);
        const order = await uc.place.execute(who, { quoteId: a.id, contact });
        await uc.cancel.execute(who, order.id);
        const kept = await uc.place.execute(who, { quoteId: (await busQuote(who, schedule, 1)).id, contact });
        const before = await seen();
        expect(before).to.have.deep.members([confirmed(order), cancelled(order), confirmed(kept)]);
        expect(await reasonOf(uc.place.execute(who, { quoteId: a.id, contact }))).to.equal('quote-already-booked');
        expect(await reasonOf(uc.cancel.execute(who, order.id))).to.equal('order-already-cancelled');
        expect(await seen()).to.have.deep.members(before);
        const late = await busQuote(who, schedule, 1);
        const last = await uc.place.execute(who, { quoteId: b.id, contact }); // the last two seats
        const after = [...before, confirmed(last)];
        expect(await seen()).to.have.deep.members(after);
        expect(await reasonOf(uc.place.execute(who, { quoteId: late.id, contact }))).to.equal('sold-out');
        clock.advance(900_000);
        expect(await reasonOf(uc.place.execute(who, { quoteId: expired.id, contact }))).to.equal('quote-expired');
        clock.set(new Date(Date.parse(`${date}T03:00:00.000Z`)));
        expect(await reasonOf(uc.cancel.execute(who, kept.id))).to.equal('cancellation-window-closed');
        expect(await seen()).to.have.deep.members(after);
      });
    });
  });
}
