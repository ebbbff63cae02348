/** Products an agent can be entitled to book. */
export const PRODUCTS = ['airport-transfer', 'express-bus'] as const;
export type Product = (typeof PRODUCTS)[number];

export type AgentStatus = 'ACTIVE' | 'SUSPENDED';

/** A sales channel with its contracted pricing: a markup over the catalogue's base fares. */
export interface Channel {
  readonly code: string;
  readonly name: string;
  readonly currency: string;
  /** Signed adjustment to base fares in basis points (250 = +2.5 %). */
  readonly markupBps: number;
  /** Orders may be cancelled free of charge until this many hours before the start. */
  readonly freeCancellationHours: number;
  /** After that, the fee of a cancellation, in basis points of the order's price. */
  readonly lateCancellationFeeBps: number;
  /** The longest an order of this channel may be held before it is confirmed, in minutes (1..1440). */
  readonly maxHoldMinutes: number;
}

/** The channel's cancellation terms and longest hold when none are set. */
export const DEFAULT_CHANNEL_TERMS = { freeCancellationHours: 24, lateCancellationFeeBps: 5_000, maxHoldMinutes: 30 } as const;

/** A travel agent (partner) and its contract. */
export interface Agent {
  readonly id: string;
  readonly name: string;
  readonly status: AgentStatus;
  readonly channelCode: string;
  readonly entitlements: readonly Product[];
  /** The agent's contracted discount off the channel price, in basis points (≥ 0). */
  readonly discountBps: number;
  readonly createdAt: Date;
  /** False for a sandbox agent (`agent create --test`): its keys, orders and money never meet live ones (CONTRACT §6.7). */
  readonly livemode: boolean;
}
