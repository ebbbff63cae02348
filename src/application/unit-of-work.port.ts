/**
 * A unit of work: the writes made while `work` runs commit together when it resolves, or not at
 * all when it throws (a crash or a lost database connection undoes them too). A `run` started
 * inside another joins it: the outer one decides. Use cases that write run their writes in one;
 * the stores take part without being told (the unit is ambient, never passed in commands).
 *
 * An adapter may hold writes until the unit ends and send them together, and may then start
 * `work` over from its beginning (once) when a statement turns out to need more than that; nothing
 * of the first start is kept. So `work` does nothing outside the stores that must not happen
 * twice before its first store call (a use case computes, reads and writes through its ports).
 */
export interface UnitOfWork {
  run<T>(work: () => Promise<T>): Promise<T>;
}
