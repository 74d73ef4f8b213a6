import { gunzipSync, inflateSync } from 'node:zlib';
import { decodeTraceExport, OtlpDecodeError } from '../../otlp/index.js';
import type { DevContext } from '../context.js';
import { HttpError, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { otelOpRef } from './otel-ops.js';
import { SpanRejected, spanProject, spanToCall } from './otel-to-call.js';
import type { CallSchema } from './types.js';

// The real service joins the first 20 rejection reasons into `error_message`.
const MAX_REASONS = 20;

// The body limit holds for what the body decompresses to as well: a few hundred KB of gzip can inflate to
// gigabytes, and zlib stops at `maxOutputLength` instead of allocating them.
function decompress(body: Buffer, encoding: string | undefined, limit: number): Buffer {
  const value = (encoding ?? 'identity').trim().toLowerCase();
  try {
    if (value === 'gzip') return gunzipSync(body, { maxOutputLength: limit });
    if (value === 'deflate') return inflateSync(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new HttpError(413, `Request body decompresses to more than the limit of ${limit} bytes.`);
    }
    throw new HttpError(400, `The body is not valid ${value} data: ${(error as Error).message}`);
  }
  if (value === 'identity' || value === '') return body;
  throw new HttpError(415, `Unsupported Content-Encoding "${value}"; send identity or gzip.`);
}

/**
 * `POST /otel/v1/traces`: an OTLP/HTTP protobuf export. Each span becomes one call (start and end at
 * once) whose `op_name` is the ref of an op made for the span name; spans the service refuses (a span with no
 * project among them) are counted in `partial_success` instead of failing the whole export.
 */
export function otelRoute(ctx: DevContext): Route {
  return {
    method: 'POST',
    path: '/otel/v1/traces',
    handler: async (c) => {
      const type = (c.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type === 'application/json') {
        throw new HttpError(415, 'OTLP/JSON is not supported: send the export as application/x-protobuf.');
      }
      const body = decompress(await c.body(), c.req.headers['content-encoding'], c.maxBodyBytes);
      let spans: ReturnType<typeof decodeTraceExport>['spans'];
      try {
        spans = decodeTraceExport(body).spans;
      } catch (error) {
        if (error instanceof OtlpDecodeError) throw new HttpError(400, `Could not decode the OTLP export: ${error.message}`);
        throw error;
      }
      const header = c.req.headers.project_id;
      const projectHeader = Array.isArray(header) ? header[0] : header;
      const reasons: string[] = [];
      for (const span of spans) {
        let call: CallSchema;
        try {
          call = spanToCall(span, spanProject(span, projectHeader));
        } catch (error) {
          // A span the conversion did not foresee costs that span only, never the spans after it.
          reasons.push(
            error instanceof SpanRejected
              ? error.message
              : `span ${span.spanId} ("${span.name}"): could not be converted to a call: ${(error as Error).message}`,
          );
          continue;
        }
        ctx.write({ kind: 'call', call: { ...call, op_name: otelOpRef(ctx, call.project_id, call.op_name) } });
      }
      sendJson(c.res, 200, {
        partial_success:
          reasons.length === 0
            ? null
            : { rejected_spans: reasons.length, error_message: reasons.slice(0, MAX_REASONS).join('; ') },
      });
    },
  };
}
