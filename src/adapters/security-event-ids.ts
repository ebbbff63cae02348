import { randomBytes } from 'node:crypto';

let last = 0;
let sequence = 0;

/**
 * A new security event id, `sev_…`: increasing within this process (milliseconds, then a
 * sequence), so that events recorded in the same millisecond list in the order they were
 * recorded; a random tail keeps ids of different processes apart.
 */
export function nextSecurityEventId(): string {
  const now = Date.now();
  if (now > last) {
    last = now;
    sequence = 0;
  } else {
    sequence += 1;
  }
  return `sev_${last.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(6).toString('hex')}`;
}
