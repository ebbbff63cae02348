import { requestOrigin } from '../client-address.js';
import { NO_STORE, operation, type Operation } from '../operation.js';
import { EXAMPLE_IDS, type DemoExamples } from '../openapi/examples.js';
import { DEMO_USER_EXAMPLE } from './auth.operations.js';
import {
  createUserSchema,
  listUsersQuery,
  userParams,
  userWithBalancePageSchema,
  userWithBalanceSchema,
  walletUserSchema,
} from './users.schemas.js';
import { withLivemode } from './transactions.schemas.js';
import { live } from './wallet-examples.js';

/** One user of the tenant: where `getWalletUser` reads it, and where a new user's `Location` points. */
const USER_PATH = '/users/{userId}';

const machineErrors = {
  401: { description: 'No valid machine token', reasons: ['invalid-token'] },
  403: { description: 'A user token was sent', reasons: ['machine-token-required'] },
} as const;

const demoUser = (demo: DemoExamples) => ({
  id: EXAMPLE_IDS.demoUser,
  externalUserRef: DEMO_USER_EXAMPLE.externalUserRef,
  email: DEMO_USER_EXAMPLE.email,
  createdAt: demo.createdAt,
});
const newUser = { externalUserRef: 'customer-42', email: 'nok.chaiyo@example.com' };
const thb = (amount: number) => ({ amount, currency: 'THB' });

/** Where the tenant's wallet users are made and listed, relative to `WALLET_BASE_PATH`. */
const USERS_PATH = '/users';

/** The tenant's wallet users (machine token) and `GET /me` (user token). */
export const userOperations: readonly Operation[] = [
  operation({
    surface: 'wallet',
    method: 'post',
    path: USERS_PATH,
    operationId: 'createWalletUser',
    summary: 'Create a wallet user of the calling tenant',
    description:
      'With `email` and `password` the person can also sign in at `/auth/login`. The password must be 8..256 characters and is refused with `password-too-common` when it is on a list of commonly used or breached passwords (about 49,000, compared without regard to case) or repeats a run of one to three characters (`aaaaaaaa`, `abababab`): show the message and ask for another.',
    tags: ['users'],
    token: 'machine',
    request: { body: createUserSchema },
    examples: (demo) => ({
      body: { ...newUser, password: 'mango sticky rice at noon' },
      response: live({ id: EXAMPLE_IDS.otherUser, ...newUser, createdAt: demo.createdAt }),
    }),
    responses: {
      201: { description: 'The new user', schema: walletUserSchema, headers: { Location: USER_PATH } },
      400: {
        description: 'Bad body; or a password that is too common',
        reasons: ['invalid-request', 'malformed-json', 'password-too-common'],
      },
      ...machineErrors,
      409: { description: 'The tenant already has that externalUserRef or email', reasons: ['user-exists'] },
      415: { description: 'Body is not JSON', reasons: ['unsupported-media-type'] },
    },
    handler: async ({ body, req, caller, core }) => {
      const user = await core.identity.createWalletUser.execute(
        caller.machine(),
        {
          externalUserRef: body.externalUserRef,
          ...(body.email === undefined ? {} : { email: body.email }),
          ...(body.password === undefined ? {} : { password: body.password }),
        },
        requestOrigin(req),
      );
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store', Location: `${req.baseUrl}/users/${user.id}` },
        body: withLivemode(user, caller.livemode()),
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: USERS_PATH,
    operationId: 'listWalletUsers',
    summary: 'The calling tenant’s users, oldest first',
    tags: ['users'],
    token: 'machine',
    request: { query: listUsersQuery },
    examples: (demo) => ({
      query: { limit: 20 },
      response: { data: [live({ ...demoUser(demo), balance: thb(35_000) })], nextCursor: null },
    }),
    responses: {
      200: { description: 'A keyset page, each user with its balance', schema: userWithBalancePageSchema },
      400: { description: 'Bad limit or cursor', reasons: ['invalid-request'] },
      ...machineErrors,
    },
    handler: async ({ query: { cursor, limit }, caller, core }) => {
      const page = await core.identity.listWalletUsers.execute(caller.machine(), { limit, ...(cursor === undefined ? {} : { cursor }) });
      const balances = await core.wallet.getUserBalances.execute(
        caller.machine(),
        page.data.map((u) => u.id),
      );
      return {
        status: 200,
        headers: NO_STORE,
        body: { ...page, data: page.data.map((u) => withLivemode({ ...u, balance: balances.get(u.id) }, caller.livemode())) },
      };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: USER_PATH,
    operationId: 'getWalletUser',
    summary: 'One user of the calling tenant',
    tags: ['users'],
    token: 'machine',
    request: { params: userParams },
    examples: (demo) => ({ params: { userId: EXAMPLE_IDS.demoUser }, response: live({ ...demoUser(demo), balance: thb(35_000) }) }),
    responses: {
      200: { description: 'The user with its balance', schema: userWithBalanceSchema },
      ...machineErrors,
      404: { description: 'No such user in this tenant (another tenant’s user included)', reasons: ['user-not-found'] },
    },
    handler: async ({ params: { userId }, caller, core }) => {
      const user = await core.identity.getWalletUser.execute(caller.machine(), userId);
      const balances = await core.wallet.getUserBalances.execute(caller.machine(), [user.id]);
      return { status: 200, headers: NO_STORE, body: withLivemode({ ...user, balance: balances.get(user.id) }, caller.livemode()) };
    },
  }),
  operation({
    surface: 'wallet',
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'The person in the user token',
    description: 'No parameter selects another user. Password-login and delegated tokens give the same access.',
    tags: ['me'],
    token: 'user',
    examples: (demo) => ({ response: live(demoUser(demo)) }),
    responses: {
      200: { description: 'The wallet holder', schema: walletUserSchema },
      401: {
        description: 'No valid token, or a machine token ("Authenticated principal is not a wallet user.")',
        reasons: ['invalid-token', 'not-a-wallet-user'],
      },
    },
    handler: async ({ caller, core }) => {
      const me = await core.identity.getCurrentWalletUser.execute(caller.user(), caller.walletUser as never);
      return { status: 200, headers: NO_STORE, body: withLivemode(me, caller.livemode()) };
    },
  }),
];
