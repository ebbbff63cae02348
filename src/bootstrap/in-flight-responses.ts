import type http from 'node:http';
import type { Socket } from 'node:net';

const PREVIOUS = Symbol('in-flight previous');
const NEXT = Symbol('in-flight next');

/** An entry of the list (a response, a connection): its neighbours, cleared when it leaves. */
type Linked<T extends object> = T & { [PREVIOUS]?: Linked<T> | null | undefined; [NEXT]?: Linked<T> | null };

/**
 * Objects in flight (responses being answered, connections open), as a list threaded through
 * the objects themselves. A `Set`
 * did the same job, but one entry added and one deleted per request made V8 rebuild the set's
 * table now and then; a replaced table in the old generation kept every response it had held,
 * and all they referred to, alive through young collections until the next full one: a third
 * more garbage-collection work a request under load (bench/results.md, 2026-11-27). Here leaving
 * clears both neighbours' links and the object's own.
 */
export class InFlight<T extends object> {
  private head: Linked<T> | null = null;

  add(res: Linked<T>): void {
    res[PREVIOUS] = null;
    res[NEXT] = this.head;
    if (this.head !== null) this.head[PREVIOUS] = res;
    this.head = res;
  }

  remove(res: Linked<T>): void {
    const previous = res[PREVIOUS];
    // Not in the list (never added, or already removed).
    if (previous === undefined) return;
    const next = res[NEXT] ?? null;
    if (previous === null) {
      if (this.head === res) this.head = next;
    } else previous[NEXT] = next;
    if (next !== null) next[PREVIOUS] = previous;
    res[PREVIOUS] = undefined;
    res[NEXT] = null;
  }

  forEach(visit: (res: T) => void): void {
    for (let res = this.head; res !== null; res = res[NEXT] ?? null) visit(res);
  }
}

/** The responses being answered. */
export class InFlightResponses extends InFlight<http.ServerResponse> {}

/** The open connections (the same list, for the shutdown to find the idle ones). */
export class OpenConnections extends InFlight<Socket> {}
