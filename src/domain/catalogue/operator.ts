import { DomainError } from '../shared/errors.js';

/** How an operator confirms a booking: at once, or later by hand within its window. */
export type ConfirmationMode = 'instant' | 'on-request';
export const CONFIRMATION_MODES: readonly ConfirmationMode[] = ['instant', 'on-request'];

/** The window an on-request operator has to confirm, unless it is given one. */
export const DEFAULT_CONFIRMATION_WINDOW_MINUTES = 120;
/** The bounds of a confirmation window: a minute to a week. */
export const CONFIRMATION_WINDOW_BOUNDS = { min: 1, max: 10_080 } as const;
/** The most vehicles of one class an operator can have in one pickup hour. */
export const MAX_FLEET_VEHICLES = 10_000;

/** Who runs a product: every bus schedule and every transfer fare belongs to one operator. */
export interface Operator {
  /** 1-32 of A-Z, 0-9, _ and -, starting with a letter or digit. */
  readonly code: string;
  readonly name: string;
  /** An IANA time zone (`Asia/Bangkok`): where its pickup hours and departures are local. */
  readonly timezone: string;
  readonly confirmation: ConfirmationMode;
  readonly confirmationWindowMinutes: number;
  /** False for a sandbox operator (`operator create --test`): it sees only sandbox orders (CONTRACT §6.7). */
  readonly livemode: boolean;
}

/**
 * Whether an agent of this mode may book what the operator runs: a sandbox agent books the whole
 * catalogue (on stock of its own), a live agent never a sandbox operator's products (CONTRACT §6.7).
 */
export const bookableBy = (operator: Operator, agentLivemode: boolean): boolean => operator.livemode || !agentLivemode;

/** What quotes and trips show of their operator. */
export interface OperatorRef {
  readonly code: string;
  readonly name: string;
}

/** How many vehicles of one class a transfer operator has in each pickup hour. */
export interface FleetEntry {
  readonly operatorCode: string;
  readonly vehicleClass: string;
  readonly vehicles: number;
}

const CODE = /^[A-Z0-9][A-Z0-9_-]{0,31}$/;

/** Whether `zone` names an IANA time zone this runtime knows (`UTC` included). */
export const isTimeZone = (zone: string): boolean => {
  if (zone.trim() === '' || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const invalid = (path: string, message: string): DomainError =>
  new DomainError('invalid-request', { message: `${path} ${message}.`, details: { errors: [{ path, message }] } });

/**
 * An operator from what an administrator typed: the code's format, a name of 1-200 characters,
 * a known IANA time zone, a confirmation mode and a window of 1 to 10 080 minutes (default 120).
 * Anything else is `invalid-request` naming the field.
 */
export const operatorOf = (input: {
  readonly code: string;
  readonly name: string;
  readonly timezone: string;
  readonly confirmation?: string | undefined;
  readonly confirmationWindowMinutes?: number | undefined;
  readonly livemode?: boolean | undefined;
}): Operator => {
  if (!CODE.test(input.code)) throw invalid('code', 'must be 1-32 of A-Z, 0-9, _ and -, starting with a letter or digit');
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) throw invalid('name', 'must be 1-200 characters');
  if (!isTimeZone(input.timezone)) throw invalid('timezone', 'must be an IANA time zone such as Asia/Bangkok');
  const confirmation = input.confirmation ?? 'instant';
  if (!(CONFIRMATION_MODES as readonly string[]).includes(confirmation)) throw invalid('confirmation', 'must be instant or on-request');
  const window = input.confirmationWindowMinutes ?? DEFAULT_CONFIRMATION_WINDOW_MINUTES;
  if (!Number.isInteger(window) || window < CONFIRMATION_WINDOW_BOUNDS.min || window > CONFIRMATION_WINDOW_BOUNDS.max) {
    throw invalid(
      'confirmationWindowMinutes',
      `must be a whole number of minutes, ${CONFIRMATION_WINDOW_BOUNDS.min}..${CONFIRMATION_WINDOW_BOUNDS.max}`,
    );
  }
  return {
    code: input.code,
    name,
    timezone: new Intl.DateTimeFormat('en-US', { timeZone: input.timezone }).resolvedOptions().timeZone,
    confirmation: confirmation as ConfirmationMode,
    confirmationWindowMinutes: window,
    livemode: input.livemode ?? true,
  };
};

/** A fleet size an administrator may set: a whole number 0..10 000 (0 stops selling the class). */
export const checkFleetSize = (vehicles: number): void => {
  if (!Number.isInteger(vehicles) || vehicles < 0 || vehicles > MAX_FLEET_VEHICLES) {
    throw invalid('vehicles', `must be a whole number, 0..${MAX_FLEET_VEHICLES}`);
  }
};

/**
 * A fleet is a transfer operator's: one that runs bus schedules and drives no transfer fare is
 * refused (`invalid-request` on operator). An operator that runs neither yet may be given one.
 */
export const checkFleetOperator = (runs: { readonly busSchedules: boolean; readonly transferFares: boolean }): void => {
  if (runs.busSchedules && !runs.transferFares)
    throw invalid('operator', 'runs bus schedules and no transfers: a fleet is a transfer operator’s');
};

/**
 * The start of the local hour (in the operator's time zone) that `at` falls in: the pickup hour
 * whose vehicles a transfer at `at` takes. Offsets are whole minutes in every current zone, so
 * taking the local minutes and seconds off `at` lands on the local hour's start.
 */
export const pickupHourOf = (at: Date, timezone: string): Date => {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(at);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  const second = Number(parts.find((p) => p.type === 'second')?.value ?? 0);
  return new Date(at.getTime() - minute * 60_000 - second * 1000 - at.getUTCMilliseconds());
};

/** The slug an operator code is made of from a name (`Gulf Coast Coaches` → `GULF-COAST-COACHES`), as migrations map names. */
export const operatorCodeOf = (name: string): string =>
  name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32) || 'OPERATOR';
