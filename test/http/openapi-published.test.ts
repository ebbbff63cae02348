import { expect } from 'chai';
import { committedExamplesDay, OPENAPI_FILES, type OpenApiFile } from '../../src/adapters/http/openapi/documents.js';
import { exampleDayOf } from '../../src/adapters/http/openapi/examples.js';
import { PublishedOpenApiFiles } from '../../src/adapters/http/openapi/published.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { eventually } from '../support/builders.js';
import { ManualClock } from '../support/clock.js';

const DAY_MS = 86_400_000;

describe('published OpenAPI files: built off the request path', () => {
  it('when the files are read, then they are the ones built at start; a new day’s are built by the timer and swapped in, never by a read', async () => {
    const clock = new ManualClock();
    clock.set(new Date('2026-11-26T23:59:59.900Z'));
    const builds: Array<[OpenApiFile, string]> = [];
    const published = new PublishedOpenApiFiles(
      (file, day) => {
        builds.push([file, day]);
        return `${file} as of ${day}`;
      },
      () => clock.now(),
      20,
    );
    expect(builds).to.deep.equal(OPENAPI_FILES.map((f) => [f, '2026-11-26']));
    clock.advance(200); // past midnight
    for (let i = 0; i < 50; i++) expect(published.files()['booking-api.yaml']).to.equal('booking-api.yaml as of 2026-11-26');
    expect(builds).to.have.length(OPENAPI_FILES.length);
    published.start();
    try {
      await eventually(async () => published.day === '2026-11-27', 2_000, 'the new day swapped in');
    } finally {
      await published.stop();
    }
    expect(builds.slice(OPENAPI_FILES.length)).to.deep.equal(OPENAPI_FILES.map((f) => [f, '2026-11-27']));
    expect(published.files()).to.deep.equal(Object.fromEntries(OPENAPI_FILES.map((f) => [f, `${f} as of 2026-11-27`])));
  });

  it('when a new day’s files are being built, then reads get the previous day’s whole set until all are built', async () => {
    const clock = new ManualClock();
    clock.set(new Date('2026-11-26T12:00:00Z'));
    const published = new PublishedOpenApiFiles(
      (file, day) => `${file} ${day}`,
      () => clock.now(),
      60_000,
    );
    clock.advance(DAY_MS);
    const refresh = published.refresh();
    // The build yields between files: a read in between sees the old set, whole.
    await new Promise((r) => setImmediate(r));
    expect(new Set(Object.values(published.files()).map((t) => t.split(' ')[1]))).to.deep.equal(new Set(['2026-11-26']));
    await refresh;
    expect(new Set(Object.values(published.files()).map((t) => t.split(' ')[1]))).to.deep.equal(new Set(['2026-11-27']));
  });

  describe('GET /openapi/<file> on a new day', () => {
    const clock = new ManualClock();
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ clock, memory: true });
    });
    after(async () => app.stop());

    it('when a request comes on a day after the files were built, then it is answered from the built files, not by building', async () => {
      const startDay = exampleDayOf(clock.now());
      const first = await (await app.request('/openapi/booking-api.yaml')).text();
      expect(committedExamplesDay(first)).to.equal(startDay);
      clock.advance(DAY_MS);
      for (const file of OPENAPI_FILES) {
        const res = await app.request(`/openapi/${file}`);
        expect(res.status).to.equal(200);
        // Built at start: the request did not build the new day's (the timer will).
        expect(committedExamplesDay(await res.text()), file).to.equal(startDay);
      }
    });
  });
});
