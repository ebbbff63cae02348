import type { Order } from '../../../domain/booking/order.js';

/**
 * What an operator sees of an order: what it needs to run the trip and who booked it, never the
 * agent's price, channel, key, reference, refund or fee (CONTRACT §6.3).
 */
export const operatorOrderView = (o: Order, agentName: string) => ({
  id: o.id,
  status: o.status,
  product: o.product,
  details: o.details,
  passengers: o.passengers,
  contact: o.contact,
  agentName,
  createdAt: o.createdAt.toISOString(),
  confirmationDeadline: o.confirmationDeadline === null ? null : o.confirmationDeadline.toISOString(),
  operatorReference: o.operatorReference,
});
