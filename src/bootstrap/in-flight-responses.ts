import type http from 'node:http';

const PREVIOUS = Symbol('in-flight previous');
const NEXT = Symbol('in-flight next');

/** A response in the in-flight list: its neighbours, cleared when it leaves. */
type Linked = http.ServerResponse & { [PREVIOUS]?: Linked | null | undefined; [NEXT]?: Linked | null };

/**
 * The responses being answered, as a list threaded through the responses themselves. A `Set`
 * did the same job, but one entry added and one deleted per request made V8 rebuild the set's
 * table now and then; a replaced table in the old generation kept every response it had held,
 * and all they referred to, alive through young collections until the next full one: a third
 * more garbage-collection work a request under load (bench/results.md, 2026-11-27). Here leaving
 * clears both neighbours' links and the response's own.
 */
export class InFlightResponses {
  private head: Linked | null = null;

  add(res: Linked): void {
    res[PREVIOUS] = null;
    res[NEXT] = this.head;
    if (this.head !== null) this.head[PREVIOUS] = res;
    this.head = res;
  }

  remove(res: Linked): void {
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

  forEach(visit: (res: http.ServerResponse) => void): void {
    for (let res = this.head; res !== null; res = res[NEXT] ?? null) visit(res);
  }
}
