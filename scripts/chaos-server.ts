import { ContainerModule } from 'inversify';
import { startTracing } from '../src/bootstrap/tracing.js';
import { TOKENS } from '../src/bootstrap/tokens.js';
import type { Core } from '../src/bootstrap/core.js';
import type { PortSet } from '../src/bootstrap/ports.js';

/**
 * The service as `npm start` runs it, plus operator routes the chaos scenarios use to prepare and
 * drive their load: `POST /chaos/agents { channelCode }` creates an agent and
 * `POST /chaos/keys { agentId }` issues it a key, each answering 201 only after the commit;
 * `POST /chaos/schedules { seatCapacity }` seeds the catalogue and loads a Bangkok → Pattaya bus
 * schedule of its own; `POST /chaos/tenants` creates a wallet tenant and answers its client.
 * This composition lives under scripts/ and is never part of the service: the routes exist only
 * in a process started from this file with CHAOS_ROUTES=on. As in `main.ts`, tracing (when an OTLP
 * endpoint is set) starts before Express and the service are loaded.
 */
if (process.env.CHAOS_ROUTES !== 'on') {
  process.stderr.write('scripts/chaos-server.ts adds test-only write routes; set CHAOS_ROUTES=on to run it\n');
  process.exit(2);
}

async function main(): Promise<void> {
  const tracing = await startTracing();
  const [{ Router }, { jsonBody }, { runServer }] = await Promise.all([
    import('express'),
    import('../src/adapters/http/request-guards.js'),
    import('../src/bootstrap/run.js'),
  ]);

  const chaosRoutes = new ContainerModule(({ bind }) => {
    bind(TOKENS.RootRouters).toResolvedValue(
      (core: Core, ports: PortSet) => {
        const { createAgent, issueApiKey: issueKey, seedCatalogue, createTenant } = core.admin;
        const catalogue = ports.catalogue;
        const router = Router();
        router.post('/chaos/agents', jsonBody, async (req, res) => {
          const body = req.body as { channelCode?: unknown; name?: unknown };
          const agent = await createAgent.execute({ name: String(body.name ?? 'chaos agent'), channelCode: String(body.channelCode) });
          res.status(201).json({ id: agent.id });
        });
        router.post('/chaos/keys', jsonBody, async (req, res) => {
          const key = await issueKey.execute({ agentId: String((req.body as { agentId?: unknown }).agentId) });
          res.status(201).json({ id: key.keyId, apiKey: key.apiKey });
        });
        router.post('/chaos/schedules', jsonBody, async (req, res) => {
          await seedCatalogue.execute();
          const id = `sch_chaos_${Date.now().toString(36)}`;
          const operator = {
            code: id
              .toUpperCase()
              .replace(/[^A-Z0-9]+/g, '-')
              .slice(0, 32),
            name: `Chaos Coaches ${id}`,
          };
          const seatCapacity = Number((req.body as { seatCapacity?: unknown }).seatCapacity ?? 100_000);
          await catalogue.load({
            operators: [{ ...operator, timezone: 'Asia/Bangkok', confirmation: 'instant', confirmationWindowMinutes: 120, livemode: true }],
            fleets: [],
            locations: [],
            cities: [],
            vehicleClasses: [],
            transferFares: [],
            schedules: [
              {
                id,
                fromCityId: 'cty_bangkok',
                toCityId: 'cty_pattaya',
                operatorCode: operator.code,
                departureTimes: ['10:00'],
                utcOffsetMinutes: 420,
                durationMinutes: 150,
                seatCapacity,
                baseFare: { amount: 18_000, currency: 'THB' },
              },
            ],
          });
          res.status(201).json({ id, operator });
        });
        router.post('/chaos/tenants', jsonBody, async (_req, res) => {
          res.status(201).json(await createTenant.execute({ name: `Chaos ${Date.now()}` }));
        });
        return router;
      },
      [TOKENS.Core, TOKENS.Ports],
    );
  });

  await runServer({ extraModules: [chaosRoutes], ...(tracing === null ? {} : { beforeExit: () => tracing.shutdown() }) });
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
