/**
 * A unit of work: `work` runs once, in one database transaction; the writes it makes commit
 * together when it resolves, or not at all when it throws (a crash or a lost database connection
 * undoes them too). A `run` started inside another joins it: the outer one decides. Use cases
 * that make more than one write run them in one; the stores take part without being told (the
 * unit is ambient, never passed in commands).
 */
export interface UnitOfWork {
  run<T>(work: () => Promise<T>): Promise<T>;
}
