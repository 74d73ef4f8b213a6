import type { DevContext } from '../context.js';
import { sendJson } from '../http.js';
import { VERSION } from '../../version.js';
import type { Route } from '../router.js';

/** The version `weft dev` reports on `/version` and `/server_info`: weft's own. */
export const DEV_SERVICE_VERSION = VERSION;

/** `/health`, `/server_info`, `/version`: served without a key, as on the real service. */
export function infoRoutes(ctx: DevContext): Route[] {
  return [
    { method: 'GET', path: '/health', auth: false, handler: (c) => sendJson(c.res, 200, { status: 'ok' }) },
    {
      method: 'GET',
      path: '/server_info',
      auth: false,
      handler: (c) =>
        sendJson(c.res, 200, {
          min_required_weave_python_version: '0.0.0',
          server: 'weft dev',
          version: DEV_SERVICE_VERSION,
          traces_held: ctx.store.traceCount,
          traces_evicted: ctx.store.evictedTraces,
        }),
    },
    // FastAPI answers a bare string as a JSON string.
    { method: 'GET', path: '/version', auth: false, handler: (c) => sendJson(c.res, 200, DEV_SERVICE_VERSION) },
  ];
}
