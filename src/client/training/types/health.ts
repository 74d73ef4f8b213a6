/** Wire types of the training service's health endpoints (reference §1.1 rows 11–12). */

/** The body of `GET /health`; the service does not document it. */
export type HealthResponse = Record<string, unknown>;

/** The result of one queue check. The names of its fields are not documented beyond these. */
export interface QueueCheck {
  success?: boolean;
  duration?: number;
  errors?: unknown;
  [k: string]: unknown;
}

/** The body of `GET /system-check`; the service answers 503 with the same body when a check fails. */
export interface SystemCheckResponse {
  api?: boolean;
  database?: boolean;
  cpu_queue?: QueueCheck;
  gpu_queue?: QueueCheck;
  [k: string]: unknown;
}
