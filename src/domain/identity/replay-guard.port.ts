/**
 * One-time identifiers (the `jti` of client assertions, subject tokens and DPoP proofs), shared
 * by every instance: each is accepted once until it expires, wherever it is presented.
 */
export interface ReplayGuard {
  /**
   * Records `id` in `namespace` until `expiresAt` and answers true, or answers false when it was
   * recorded before and has not expired. Exactly one of any number of concurrent calls with the
   * same namespace and id, on any instance, gets true. Throws DomainError `service-unavailable`
   * when the store cannot answer: never a guess either way.
   */
  useOnce(namespace: string, id: string, expiresAt: Date): Promise<boolean>;
}

/** The namespaces of the identifiers the service accepts once. */
export const REPLAY_NAMESPACE = {
  /**
   * Every JWT a tenant signs with its registered keys, client assertions and subject tokens alike
   * (ids `<tenant id>:<jti>`): a JWT accepted in one role is refused in the other, also within
   * one request. Named as when it held client assertions alone, so that once upgraded the
   * service still refuses the assertions an older instance accepted.
   */
  tenantJwt: 'client-assertion',
  dpopProof: 'dpop-proof',
} as const;

/** A replay guard whose expired records are removed by the retention purge. */
export interface PurgeableReplayGuard extends ReplayGuard {
  /** Removes at most `batch` records that expired before `before`; returns how many. */
  purge(before: Date, batch: number): Promise<number>;
}
