import { expect } from 'chai';
import type http from 'node:http';
import { InFlightResponses } from '../../src/bootstrap/in-flight-responses.js';

const response = (name: string): http.ServerResponse => ({ name }) as unknown as http.ServerResponse;
const names = (list: InFlightResponses): string[] => {
  const seen: string[] = [];
  list.forEach((res) => seen.push((res as unknown as { name: string }).name));
  return seen.sort();
};

describe('in-flight responses', () => {
  it('when responses finish in any order, then the list holds exactly those still in flight', () => {
    const list = new InFlightResponses();
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(response) as [
      http.ServerResponse,
      http.ServerResponse,
      http.ServerResponse,
      http.ServerResponse,
      http.ServerResponse,
    ];
    for (const res of [a, b, c, d, e]) list.add(res);
    expect(names(list)).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    list.remove(c); // in the middle
    expect(names(list)).to.deep.equal(['a', 'b', 'd', 'e']);
    list.remove(b); // a neighbour of the one that left
    expect(names(list)).to.deep.equal(['a', 'd', 'e']);
    list.remove(e); // the newest
    expect(names(list)).to.deep.equal(['a', 'd']);
    list.remove(a); // the oldest
    expect(names(list)).to.deep.equal(['d']);
    list.remove(a); // twice: nothing changes
    expect(names(list)).to.deep.equal(['d']);
    list.add(c);
    list.add(b);
    expect(names(list)).to.deep.equal(['b', 'c', 'd']);
    for (const res of [c, d, b]) list.remove(res);
    expect(names(list)).to.deep.equal([]);
  });

  it('when a response that was never added finishes, then the list is unchanged', () => {
    const list = new InFlightResponses();
    list.add(response('a'));
    list.remove(response('stranger'));
    expect(names(list)).to.deep.equal(['a']);
  });
});
