import { z } from 'zod';
import type { OperationSpec } from './operation.js';
import { OPENAPI_FILES } from './openapi/documents.js';
import { DOCS_INIT_SCRIPT, DOCS_PATH, SWAGGER_ASSETS } from './docs.routes.js';

/** The published description of the OpenAPI files and the reference page. */
export const docsOperations: readonly OperationSpec[] = [
  {
    surface: 'platform',
    method: 'get',
    path: '/',
    operationId: 'getRoot',
    summary: 'The address the server prints: redirects to the API reference',
    tags: ['platform'],
    token: 'none',
    responses: { 302: { description: `Found: the reference page is at \`${DOCS_PATH}\``, headers: { Location: `\`${DOCS_PATH}\`` } } },
  },
  {
    surface: 'platform',
    method: 'get',
    path: '/openapi/{file}',
    operationId: 'getOpenApiFile',
    summary: 'One of the published OpenAPI 3.1 files',
    tags: ['platform'],
    token: 'none',
    request: { params: z.object({ file: z.enum(OPENAPI_FILES) }) },
    responses: {
      200: { description: 'The file, as generated from the routes at start', contentType: 'application/yaml' },
      404: { description: 'No such file', reasons: ['not-found'] },
    },
  },
  {
    surface: 'platform',
    method: 'get',
    path: DOCS_PATH,
    operationId: 'getDocsPage',
    summary: 'Interactive API reference over the four OpenAPI files',
    tags: ['platform'],
    token: 'none',
    responses: { 200: { description: 'The reference page', contentType: 'text/html' } },
  },
  {
    surface: 'platform',
    method: 'get',
    path: `${DOCS_PATH}/{asset}`,
    operationId: 'getDocsAsset',
    summary: 'A script, style sheet or icon of the reference page',
    tags: ['platform'],
    token: 'none',
    request: { params: z.object({ asset: z.enum([DOCS_INIT_SCRIPT, ...Object.keys(SWAGGER_ASSETS)]) }) },
    responses: {
      200: { description: 'The asset', contentType: 'application/octet-stream' },
      404: { description: 'No such asset', reasons: ['not-found'] },
    },
  },
];
