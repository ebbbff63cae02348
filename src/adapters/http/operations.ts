import type { OperationSpec } from './operation.js';
import { accountOperations } from './booking/account.openapi.js';
import { catalogueOperations } from './booking/catalogue.openapi.js';
import { authOperations } from './wallet/auth.openapi.js';
import { userOperations } from './wallet/users.openapi.js';
import { jwksOperations } from './jwks.openapi.js';

/**
 * Every published operation. Each area adds its list here; the OpenAPI files are generated
 * from this and a test checks it against the mounted routes.
 */
export const OPERATIONS: readonly OperationSpec[] = [
  ...catalogueOperations,
  ...accountOperations,
  ...authOperations,
  ...userOperations,
  ...jwksOperations,
];
