// The one "no such webhook endpoint" error of the endpoint and delivery use cases.

import { DomainError } from '../../domain/shared/errors.js';

export const endpointNotFound = () => new DomainError('webhook-endpoint-not-found');
