import { forwardCallOptions } from '../core/call-options.js';
import type { CallOptions } from '../core/types.js';
import { TraceResource } from './resource.js';
import type { GeolocateRes, HealthRes, ProjectsInfoReq, ProjectsInfoRes, ServerInfoRes, VersionRes } from './types/service.js';

/** The trace service's own information. `client.trace.service` */
export class Service extends TraceResource {
  /** GET /health */
  async health(options?: CallOptions): Promise<HealthRes> {
    return this.json('GET', '/health', {}, options);
  }

  /** GET /server_info */
  async serverInfo(options?: CallOptions): Promise<ServerInfoRes> {
    return this.json('GET', '/server_info', {}, options);
  }

  /** GET /version; the one trace endpoint whose answer may be plain text, returned as a string. */
  async version(options: CallOptions = {}): Promise<VersionRes> {
    return this.scope.core.request({ method: 'GET', path: '/version', allowText: true, ...forwardCallOptions(options) });
  }

  /** Where the service thinks the caller is. GET /geolocate */
  async geolocate(options?: CallOptions): Promise<GeolocateRes> {
    return this.json('GET', '/geolocate', {}, options);
  }

  /** Information about projects; the payload is not documented, so it is passed as given. POST /service/projects_info */
  async projectsInfo(req: ProjectsInfoReq = {}, options?: CallOptions): Promise<ProjectsInfoRes> {
    return this.json('POST', '/service/projects_info', { body: req, retry: 'idempotent' }, options);
  }
}
