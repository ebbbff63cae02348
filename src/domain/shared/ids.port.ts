/** Type prefixes of the opaque ids the service hands out. */
export type IdPrefix =
  | 'agt'
  | 'chn'
  | 'key'
  | 'qte'
  | 'ord'
  | 'usr'
  | 'txn'
  | 'tnt'
  | 'cli'
  | 'loc'
  | 'cty'
  | 'trp'
  | 'sch'
  | 'ent'
  | 'req'
  | 'whe'
  | 'evt'
  | 'dlv'
  | 'sev'
  | 'opk'
  | 'auth';

/** Makes new opaque ids. */
export interface IdGenerator {
  /** Returns a new id `<prefix>_<random>`, unique across instances and sortable by creation time. */
  next(prefix: IdPrefix): string;
}
