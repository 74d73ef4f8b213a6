import type { UnknownShape } from './common.js';

/** GET /health */
export type HealthRes = Record<string, string>;

/** GET /server_info; newer servers may add fields. */
export interface ServerInfoRes {
  min_required_weave_python_version: string;
  [key: string]: unknown;
}

/** GET /version: probably a version string or object (UNVERIFIED). */
export type VersionRes = string | UnknownShape;

/** GET /geolocate: shape not found (UNVERIFIED). */
export type GeolocateRes = UnknownShape;

/** POST /service/projects_info: neither request nor response is shown; open records. */
export type ProjectsInfoReq = UnknownShape;
/** The answer of POST /service/projects_info. */
export type ProjectsInfoRes = UnknownShape | unknown[];

/** GET /inference/analysis/{provider}/models, /inference/{vendor}/v2/hardware, /inference/router/{provider}/models: not shown. */
export type InferenceInfoRes = UnknownShape | unknown[];
