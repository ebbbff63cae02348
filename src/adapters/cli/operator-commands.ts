import { CONFIRMATION_MODES, type Operator } from '../../domain/catalogue/operator.js';
import type { ServiceCommand } from './admin.js';
import { given, optionalChoice, optionalInt, required } from './command.js';

/** An operator as the commands print it. */
const operatorJson = (o: Operator): Record<string, unknown> => ({
  code: o.code,
  name: o.name,
  timezone: o.timezone,
  confirmation: o.confirmation,
  confirmationWindowMinutes: o.confirmationWindowMinutes,
  livemode: o.livemode,
});

/** The operators of the catalogue (CONTRACT §6.1): who runs each product, and their transfer fleets. */
export const OPERATOR_COMMANDS: readonly ServiceCommand[] = [
  {
    name: 'operator create',
    summary: 'create an operator: who runs bus schedules or drives transfers, and how it confirms bookings',
    flags: {
      code: { value: 'C', required: true, description: 'the operator code: 1-32 of A-Z, 0-9, _ and -' },
      name: { value: 'N', required: true, description: 'the operator name, 1-200 characters' },
      timezone: { value: 'TZ', required: true, description: 'its IANA time zone, such as Asia/Bangkok (pickup hours are local to it)' },
      confirmation: { value: CONFIRMATION_MODES.join('|'), description: 'how it confirms bookings (default instant)' },
      'confirmation-window-minutes': {
        value: 'N',
        description: 'minutes an on-request operator has to confirm, 1..10080 (default 120)',
      },
      test: { description: 'make a sandbox operator: its keys are pbo_test_…, it sees only sandbox orders' },
    },
    run: async (v, u) => {
      const confirmation = optionalChoice(v, 'confirmation', CONFIRMATION_MODES);
      const window = optionalInt(v, 'confirmation-window-minutes');
      const created = await u.createOperator.execute({
        code: required(v, 'code'),
        name: required(v, 'name'),
        timezone: required(v, 'timezone'),
        ...given({ confirmation, confirmationWindowMinutes: window }),
        livemode: v.test !== true,
      });
      return operatorJson(created);
    },
    output: 'fields',
  },
  {
    name: 'operator list',
    summary: 'list the operators by code, with how each confirms',
    flags: {},
    run: async (_v, u) => ({ data: (await u.listOperators.execute()).map(operatorJson) }),
    output: { table: ['code', 'confirmation', 'confirmationWindowMinutes', 'timezone', 'livemode', 'name'] },
  },
  {
    name: 'operator show',
    summary: 'show an operator with its fleet (vehicles per class and pickup hour)',
    flags: { operator: { value: 'C', required: true, description: 'the operator code' } },
    run: async (v, u) => {
      const shown = await u.showOperator.execute(required(v, 'operator'));
      return { ...operatorJson(shown), fleet: shown.fleet.map((f) => ({ vehicleClass: f.vehicleClass, vehicles: f.vehicles })) };
    },
    output: 'fields',
  },
  {
    name: 'operator set-fleet',
    summary: 'set how many vehicles of a class a transfer operator has in each pickup hour (later bookings count against it)',
    flags: {
      operator: { value: 'C', required: true, description: 'the operator code' },
      'vehicle-class': { value: 'V', required: true, description: 'the vehicle class, such as sedan, suv or van' },
      vehicles: { value: 'N', required: true, description: 'vehicles of that class per pickup hour, 0..10000 (0 stops selling it)' },
    },
    run: async (v, u) => {
      const vehicles = optionalInt(v, 'vehicles');
      const set = await u.setOperatorFleet.execute({
        operatorCode: required(v, 'operator'),
        vehicleClass: required(v, 'vehicle-class'),
        vehicles: vehicles!,
      });
      return { operator: set.operatorCode, vehicleClass: set.vehicleClass, vehicles: set.vehicles };
    },
    output: 'fields',
  },
  {
    name: 'operator key issue',
    summary: 'issue a key for the operator surface /operator/v1/ (shown once: only its hash is kept)',
    flags: { operator: { value: 'C', required: true, description: 'the operator code' } },
    run: async (v, u) => {
      const { keyId, apiKey } = await u.issueOperatorKey.execute(required(v, 'operator'));
      return { keyId, apiKey };
    },
    output: 'fields',
  },
  {
    name: 'operator key revoke',
    summary: 'revoke an operator key: it answers 401 on every instance within a second',
    flags: { key: { value: 'ID', required: true, description: 'the key id (opk_...)' } },
    run: async (v, u) => {
      const key = await u.revokeOperatorKey.execute(required(v, 'key'));
      return { keyId: key.id, operator: key.operatorCode, revokedAt: key.revokedAt?.toISOString() ?? null };
    },
    output: 'fields',
  },
];
