import { ContainerModule } from 'inversify';
import { CachedTariffReader } from '../../adapters/cache/tariff.cached.js';
import { ListTrips } from '../../application/booking/list-trips.js';
import { GetQuote } from '../../application/booking/get-quote.js';
import { QuoteBusTrip } from '../../application/booking/quote-bus-trip.js';
import { QuoteTransfer } from '../../application/booking/quote-transfer.js';
import { CancelOrder } from '../../application/booking/cancel-order.js';
import { GetOrder } from '../../application/booking/get-order.js';
import { ListOrders } from '../../application/booking/list-orders.js';
import { PlaceOrder } from '../../application/booking/place-order.js';
import { PreviewCancellation } from '../../application/booking/preview-cancellation.js';
import { orderRoutes } from '../../adapters/http/booking/orders.routes.js';
import { quoteRoutes } from '../../adapters/http/booking/quotes.routes.js';
import { tripRoutes } from '../../adapters/http/booking/trips.routes.js';
import { agentScopeOf } from '../../adapters/http/idempotency-scopes.js';
import type { Idempotent } from '../../adapters/http/idempotency.middleware.js';
import type { Database } from '../../adapters/knex/database.js';
import { KnexOrderRepo } from '../../adapters/knex/order-repo.knex.js';
import { KnexQuoteRepo } from '../../adapters/knex/quote-repo.knex.js';
import { KnexTariffReader } from '../../adapters/knex/tariff.knex.js';
import { KnexTripInventory } from '../../adapters/knex/trip-inventory.knex.js';
import { MemoryOrderRepo, MemoryQuoteRepo } from '../../adapters/memory/booking.memory.js';
import type { MemoryOutbox } from '../../adapters/memory/webhooks.memory.js';
import { MemoryCatalogue } from '../../adapters/memory/catalogue.memory.js';
import { MemoryTariffReader } from '../../adapters/memory/tariff.memory.js';
import type { CatalogueReader } from '../../domain/catalogue/catalogue.port.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { OrderRepo } from '../../domain/booking/order-repo.port.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import type { TripInventory } from '../../domain/booking/trip-inventory.port.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import type { Config } from '../config.js';
import { TOKENS } from '../tokens.js';

/** The booking flow: trips, quotes, orders and cancellation, with their storage. */
export const bookingModule = (config: Config, db: Database | null, outbox?: MemoryOutbox): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const policy = { ttlSeconds: config.quoteTtlSeconds };
    if (db === null) {
      const orders = new MemoryOrderRepo(outbox);
      bind(TOKENS.QuoteRepo).toConstantValue(new MemoryQuoteRepo());
      bind(TOKENS.OrderRepo).toConstantValue(orders);
      bind(TOKENS.TripInventory).toConstantValue(orders);
      bind(TOKENS.TariffReader).toResolvedValue(
        (reader: CatalogueReader) => {
          if (!(reader instanceof MemoryCatalogue)) throw new Error('the in-memory booking flow needs the in-memory catalogue');
          return new MemoryTariffReader(reader);
        },
        [TOKENS.CatalogueReader],
      );
    } else {
      bind(TOKENS.QuoteRepo).toConstantValue(new KnexQuoteRepo(db.knex));
      bind(TOKENS.OrderRepo).toConstantValue(new KnexOrderRepo(db.knex));
      bind(TOKENS.TripInventory).toConstantValue(new KnexTripInventory(db.knex));
      // Seconds of lag after a catalogue reload, for no catalogue round trip per quote.
      bind(TOKENS.TariffReader).toConstantValue(
        new CachedTariffReader(new KnexTariffReader(db.knex), { ttlMs: 10_000, maxEntries: 10_000 }),
      );
    }
    bind(TOKENS.ListTrips).toResolvedValue(
      (tariffs: TariffReader, inventory: TripInventory, clock: Clock) => new ListTrips(tariffs, inventory, clock),
      [TOKENS.TariffReader, TOKENS.TripInventory, TOKENS.Clock],
    );
    bind(TOKENS.QuoteTransfer).toResolvedValue(
      (tariffs: TariffReader, quotes: QuoteRepo, ids: IdGenerator, clock: Clock) => new QuoteTransfer(tariffs, quotes, ids, clock, policy),
      [TOKENS.TariffReader, TOKENS.QuoteRepo, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.QuoteBusTrip).toResolvedValue(
      (tariffs: TariffReader, inventory: TripInventory, quotes: QuoteRepo, ids: IdGenerator, clock: Clock) =>
        new QuoteBusTrip(tariffs, inventory, quotes, ids, clock, policy),
      [TOKENS.TariffReader, TOKENS.TripInventory, TOKENS.QuoteRepo, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.GetQuote).toResolvedValue((quotes: QuoteRepo) => new GetQuote(quotes), [TOKENS.QuoteRepo]);
    bind(TOKENS.PlaceOrder).toResolvedValue(
      (quotes: QuoteRepo, orders: OrderRepo, ids: IdGenerator, clock: Clock) => new PlaceOrder(quotes, orders, ids, clock),
      [TOKENS.QuoteRepo, TOKENS.OrderRepo, TOKENS.Ids, TOKENS.Clock],
    );
    bind(TOKENS.GetOrder).toResolvedValue((orders: OrderRepo) => new GetOrder(orders), [TOKENS.OrderRepo]);
    bind(TOKENS.ListOrders).toResolvedValue((orders: OrderRepo) => new ListOrders(orders), [TOKENS.OrderRepo]);
    bind(TOKENS.CancelOrder).toResolvedValue(
      (orders: OrderRepo, directory: AgentDirectory, clock: Clock) => new CancelOrder(orders, directory, clock),
      [TOKENS.OrderRepo, TOKENS.AgentDirectory, TOKENS.Clock],
    );
    bind(TOKENS.PreviewCancellation).toResolvedValue(
      (orders: OrderRepo, directory: AgentDirectory, clock: Clock) => new PreviewCancellation(orders, directory, clock),
      [TOKENS.OrderRepo, TOKENS.AgentDirectory, TOKENS.Clock],
    );
    bind(TOKENS.BookingRouters).toResolvedValue((listTrips: ListTrips) => tripRoutes({ listTrips }), [TOKENS.ListTrips]);
    bind(TOKENS.BookingRouters).toResolvedValue(
      (quoteTransfer: QuoteTransfer, quoteBusTrip: QuoteBusTrip, getQuote: GetQuote) =>
        quoteRoutes({ quoteTransfer, quoteBusTrip, getQuote }),
      [TOKENS.QuoteTransfer, TOKENS.QuoteBusTrip, TOKENS.GetQuote],
    );
    bind(TOKENS.BookingRouters).toResolvedValue(
      (
        placeOrder: PlaceOrder,
        getOrder: GetOrder,
        listOrders: ListOrders,
        cancelOrder: CancelOrder,
        previewCancellation: PreviewCancellation,
        idempotent: Idempotent,
      ) =>
        orderRoutes({
          placeOrder,
          getOrder,
          listOrders,
          cancelOrder,
          previewCancellation,
          idempotent: idempotent(agentScopeOf),
        }),
      [TOKENS.PlaceOrder, TOKENS.GetOrder, TOKENS.ListOrders, TOKENS.CancelOrder, TOKENS.PreviewCancellation, TOKENS.Idempotent],
    );
  });
