import type { OperationSpec } from './operation.js';
import { accountOperations } from './booking/account.openapi.js';
import { catalogueOperations } from './booking/catalogue.openapi.js';
import { healthOperations } from './health.openapi.js';
import { docsOperations } from './docs.openapi.js';
import { tripOperations } from './booking/trips.openapi.js';
import { quoteOperations } from './booking/quotes.openapi.js';
import { orderOperations } from './booking/orders.openapi.js';
import { keyOperations } from './booking/keys.openapi.js';
import { authOperations } from './wallet/auth.openapi.js';
import { oauthOperations } from './wallet/oauth.openapi.js';
import { userOperations } from './wallet/users.openapi.js';
import { jwksOperations } from './jwks.openapi.js';
import { moneyOperations } from './wallet/money.openapi.js';
import { transactionOperations } from './wallet/transactions.openapi.js';
import { webhookOperations } from './webhooks/webhooks.openapi.js';

/**
 * Every published operation. Each area adds its list here; the OpenAPI files are generated
 * from this and a test checks it against the mounted routes.
 */
export const OPERATIONS: readonly OperationSpec[] = [
  ...catalogueOperations,
  ...accountOperations,
  ...tripOperations,
  ...quoteOperations,
  ...orderOperations,
  ...keyOperations,
  ...healthOperations,
  ...docsOperations,
  ...authOperations,
  ...oauthOperations,
  ...userOperations,
  ...jwksOperations,
  ...moneyOperations,
  ...transactionOperations,
  ...webhookOperations,
];
