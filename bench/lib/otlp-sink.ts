import { gunzipSync } from 'node:zlib';
import { type DecodedSpan, decodeTraceExport, encodeTraceExportResponse } from '../../src/otlp/index.js';
import { listenOnLoopback } from './loopback-server.js';

/** What one child run exported, decoded after the run so that decoding never competes with the timed calls. */
export interface ExportTally {
  requests: number;
  /** Bytes of request bodies as they crossed the wire (compressed, when the exporter compressed them). */
  wireBytes: number;
  spans: DecodedSpan[];
  /** Bodies that did not decode as an OTLP trace export. */
  undecodable: number;
}

/** A loopback OTLP/HTTP receiver for the bench: it only keeps the bytes while a child runs. */
export interface OtlpSink {
  /** Origin to give `register({ baseUrl })`; every path is accepted. */
  readonly origin: string;
  /** Full URL to give a stock `OTLPTraceExporter({ url })`. */
  readonly tracesUrl: string;
  /** Decodes and forgets everything received since the last drain. */
  drain(): ExportTally;
  close(): Promise<void>;
}

/** The body of an OTLP export's success answer. */
export const OTLP_OK_BODY = Buffer.from(encodeTraceExportResponse());

/** Starts the sink on 127.0.0.1, port 0. */
export async function startOtlpSink(): Promise<OtlpSink> {
  let bodies: { body: Buffer; gzip: boolean }[] = [];
  const server = await listenOnLoopback((req, res, body) => {
    bodies.push({ body, gzip: req.headers['content-encoding'] === 'gzip' });
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(OTLP_OK_BODY);
  });
  const { origin } = server;
  return {
    origin,
    tracesUrl: `${origin}/otel/v1/traces`,
    drain() {
      const taken = bodies;
      bodies = [];
      const tally: ExportTally = { requests: taken.length, wireBytes: 0, spans: [], undecodable: 0 };
      for (const { body, gzip } of taken) {
        tally.wireBytes += body.length;
        try {
          tally.spans.push(...decodeTraceExport(gzip ? gunzipSync(body) : body).spans);
        } catch {
          tally.undecodable++;
        }
      }
      return tally;
    },
    close: server.close,
  };
}

/** The attribute keys under which the trace service finds a call's model (reference trace-service.md §3). */
export const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'ai.model.id'];

/** Spans that name a model under one of the keys the trace service reads. */
export function spansWithModel(spans: DecodedSpan[]): number {
  return spans.filter((s) => MODEL_KEYS.some((k) => typeof s.attributes[k] === 'string' && s.attributes[k] !== '')).length;
}
