import { expect } from 'chai';
import { Lifecycle } from '../../src/bootstrap/lifecycle.js';

describe('the lifecycle of long-lived parts', () => {
  it('when started and stopped twice, then starts run once in order and stops once in reverse, past a failing stop', async () => {
    const seen: string[] = [];
    const lifecycle = new Lifecycle();
    lifecycle.add(
      () => void seen.push('start a'),
      () => void seen.push('stop a'),
    );
    lifecycle.onStart(async () => void seen.push('start b'));
    lifecycle.onStop(() => {
      throw new Error('b fails to stop');
    });
    lifecycle.add(null, () => void seen.push('stop c'));
    await Promise.all([lifecycle.start(), lifecycle.start()]);
    expect(lifecycle.accepting).to.equal(true);
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    expect(seen).to.deep.equal(['start a', 'start b', 'stop c', 'stop a']);
    expect(lifecycle.accepting).to.equal(false);
  });

  it('when a timer is registered, then it ticks only between start and stop, and a failing tick is reported, not fatal', async () => {
    const lifecycle = new Lifecycle();
    let ticks = 0;
    const errors: unknown[] = [];
    lifecycle.every(
      10,
      async () => {
        ticks += 1;
        if (ticks === 1) throw new Error('first tick fails');
      },
      (err) => errors.push(err),
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(ticks).to.equal(0);
    await lifecycle.start();
    await new Promise((r) => setTimeout(r, 60));
    await lifecycle.stop();
    const atStop = ticks;
    expect(atStop).to.be.at.least(2);
    expect(errors).to.have.length(1);
    await new Promise((r) => setTimeout(r, 40));
    expect(ticks).to.equal(atStop);
  });
});
