/**
 * A unit of work: the writes made while `work` runs commit together when it resolves, or not at
 * all when it throws (a crash or a lost database connection undoes them too). A `run` started
 * inside another joins it: the outer one decides. Use cases that write run their writes in one;
 * the stores take part without being told (the unit is ambient, never passed in commands).
 */
export interface UnitOfWork {
  run<T>(work: () => Promise<T>): Promise<T>;
}
