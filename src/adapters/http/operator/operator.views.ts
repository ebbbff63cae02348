import type { Order } from '../../../domain/booking/order.js';

/**
 * What an operator sees of an order: what it needs to run the trip and who booked it, never the
 * agent's price, channel, key, reference, refund or fee (CONTRACT §6.3).
 */
export const operatorOrderView = (o: Order, agentName: string) => ({
  id: o.id,
  status: o.status,
  product: o.product,
  details: tripDetailsOf(o),
  passengers: o.passengers,
  contact: o.contact,
  agentName,
  createdAt: o.createdAt.toISOString(),
  confirmationDeadline: o.confirmationDeadline === null ? null : o.confirmationDeadline.toISOString(),
  operatorReference: o.operatorReference,
  livemode: o.livemode,
});

/** The order's details without the agent's price: a bus order's `unitPrice` stays with the agent. */
const tripDetailsOf = (o: Order): Record<string, unknown> => {
  if (!('unitPrice' in o.details)) return { ...o.details };
  const { unitPrice: _price, ...trip } = o.details;
  return trip;
};
