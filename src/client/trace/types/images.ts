import type { JsonObject } from './common.js';

/** POST /image/create: generates images through the service (and traces it as a call by default). */
export interface ImageCreateReq {
  project_id: string;
  inputs: { model: string; prompt: string; n?: number | undefined; [key: string]: unknown };
  /** Default true. */
  track_llm_call?: boolean | undefined;
}
/** The answer of POST /image/create. */
export interface ImageCreateRes {
  response: JsonObject;
  weave_call_id?: string | null;
}
