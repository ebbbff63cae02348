import { ContainerModule } from 'inversify';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { docsRoutes } from '../../adapters/http/docs.routes.js';
import { renderOpenApiFiles } from '../../adapters/http/openapi/documents.js';
import { OPERATIONS } from '../../adapters/http/operations.js';
import type { Config } from '../config.js';
import { TOKENS } from '../tokens.js';

/** The files per wallet base path: OPERATIONS is fixed at build time, so one generation per process. */
const rendered = new Map<string, ReturnType<typeof renderOpenApiFiles>>();
const filesFor = (walletBasePath: string): ReturnType<typeof renderOpenApiFiles> => {
  let files = rendered.get(walletBasePath);
  if (files === undefined) {
    files = renderOpenApiFiles(OPERATIONS, { walletBasePath });
    rendered.set(walletBasePath, files);
  }
  return files;
};

/**
 * The published interface: the OpenAPI files, generated once at start from the operations (with
 * this deployment's `WALLET_BASE_PATH`), and the reference page at `/docs`.
 */
export const docsModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.RootRouters).toResolvedValue(
    (config: Config) =>
      docsRoutes({
        files: filesFor(config.walletBasePath),
        swaggerUiDir: getAbsoluteFSPath(),
      }),
    [TOKENS.Config],
  );
});
