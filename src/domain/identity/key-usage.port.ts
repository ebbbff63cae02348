/**
 * When keys were last used. Written in batches off the request path, so a request never waits
 * for it; readers may see a use up to the batching interval late.
 */
export interface KeyUsageStore {
  /**
   * Records, for each key id, that it was used at the given time. A stored time only moves
   * forward (an older time than the stored one changes nothing); unknown key ids are ignored.
   */
  recordUses(uses: ReadonlyMap<string, Date>): Promise<void>;
}

/** Notes each use of a key on the request path: synchronous, in memory, never waiting on storage. */
export interface KeyUseRecorder {
  /** Notes that the key was used at `at`. */
  noteUse(keyId: string, at: Date): void;
  /** The latest use of the key this instance has noted and not yet necessarily stored, or null. */
  lastNoted(keyId: string): Date | null;
}
