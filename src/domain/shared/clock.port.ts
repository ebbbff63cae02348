/** The current time. Injected so that expiry rules are testable. */
export interface Clock {
  /** Returns the current instant. */
  now(): Date;
}
