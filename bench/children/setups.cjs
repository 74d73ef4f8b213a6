// Sets up one tracing configuration in a bench child, the way each package's README says, and returns the
// `openai` module to use plus a flush that exports everything still buffered.
//
// CommonJS on purpose: every peer patches through require-in-the-middle, so this is the path on which each
// one is set up exactly as documented. An aliased copy of `openai` (`openai-v6`) is invisible to the
// peers' require hooks, which match the package directory name, so there each one is instrumented through
// its manual API.
'use strict';

const WEFT_PROJECT = 'bench/bench';

/** A tracer provider wired the way the peers' READMEs do it: batch processor, OTLP/proto exporter. */
function stockProvider(tracesUrl) {
  const { trace, context, propagation } = require('@opentelemetry/api');
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core');
  const provider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }))],
  });
  // What NodeTracerProvider.register() would do; sdk-trace-node is not a dependency here.
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return provider;
}

/** Version of an installed package, read from disk: `openai` does not export its package.json. */
function installedVersion(name) {
  const { readFileSync } = require('node:fs');
  const { dirname, join } = require('node:path');
  return JSON.parse(readFileSync(join(dirname(require.resolve(name)), 'package.json'), 'utf8')).version;
}

function peer(tracesUrl, openaiName, makeInstrumentation, manual) {
  const { registerInstrumentations } = require('@opentelemetry/instrumentation');
  const provider = stockProvider(tracesUrl);
  const instrumentation = makeInstrumentation();
  registerInstrumentations({ instrumentations: [instrumentation], tracerProvider: provider });
  const openai = require(openaiName);
  if (openaiName !== 'openai') manual(instrumentation, openai);
  return { openai, flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

const setups = {
  none(_urls, openaiName) {
    return { openai: require(openaiName), flush: async () => {}, shutdown: async () => {} };
  },

  weft(urls, openaiName) {
    const weft = require('weft');
    const handle = weft.register({ baseUrl: urls.origin, project: WEFT_PROJECT });
    const openai = require(openaiName);
    if (openaiName !== 'openai') weft.instrumentOpenAI(openai);
    return { openai, flush: () => handle.forceFlush(), shutdown: () => handle.shutdown(), handle };
  },

  // Not a peer: no spans at all, only what register() and every peer's setup switch on first, an
  // AsyncLocalStorage context manager in use. On Node 20 that alone puts an async hook on every promise.
  context(_urls, openaiName) {
    const { context, createContextKey } = require('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    // The first context.with() enables the storage's hooks for good, as the first traced call or export does.
    context.with(context.active().setValue(createContextKey('bench'), true), () => {});
    return { openai: require(openaiName), flush: async () => {}, shutdown: async () => {} };
  },

  // Not a peer: weft recording what @opentelemetry/instrumentation-openai records by default (no message content,
  // no usage request on streams), to compare the instrumentation itself like for like.
  'weft-lean'(urls, openaiName) {
    const weft = require('weft');
    const instrumentation = new weft.OpenAIInstrumentation({ captureContent: false, requestStreamUsage: false });
    const handle = weft.register({ baseUrl: urls.origin, project: WEFT_PROJECT, instrumentations: [instrumentation] });
    const openai = require(openaiName);
    if (openaiName !== 'openai') instrumentation.manuallyInstrument(openai);
    return { openai, flush: () => handle.forceFlush(), shutdown: () => handle.shutdown(), handle };
  },

  // Not a peer: the least any OpenTelemetry instrumentation of `openai` does, written by hand. One active span
  // with the model around each call, ended when the response (for a stream, its last chunk) arrives; no content,
  // no usage. What a configuration adds beyond this floor is what its own instrumentation costs.
  floor(urls, openaiName) {
    const { context, SpanKind, trace } = require('@opentelemetry/api');
    const provider = stockProvider(urls.tracesUrl);
    const tracer = provider.getTracer('floor');
    const openai = require(openaiName);
    const OpenAI = openai.default ?? openai;
    const completions = Object.getPrototypeOf(new OpenAI({ apiKey: 'unused' }).chat.completions);
    const create = completions.create;
    completions.create = function create_(body, options) {
      const span = tracer.startSpan(`chat ${body.model}`, { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': body.model } });
      const result = context.with(trace.setSpan(context.active(), span), () => create.call(this, body, options));
      result.then(
        (value) => {
          if (!body.stream) return span.end();
          const iterate = value[Symbol.asyncIterator].bind(value);
          value[Symbol.asyncIterator] = () => {
            const it = iterate();
            return {
              next: (...args) =>
                it.next(...args).then((r) => {
                  if (r.done) span.end();
                  return r;
                }),
              return: (v) => {
                span.end();
                return it.return(v);
              },
              [Symbol.asyncIterator]() {
                return this;
              },
            };
          };
        },
        () => span.end(),
      );
      return result;
    };
    return { openai, flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
  },

  // @opentelemetry/instrumentation-openai has no manual API; its module definition's patch() is public.
  otel(urls, openaiName) {
    return peer(
      urls.tracesUrl,
      openaiName,
      () => new (require('@opentelemetry/instrumentation-openai').OpenAIInstrumentation)(),
      (inst, mod) => {
        for (const def of inst.getModuleDefinitions()) def.patch?.(mod, installedVersion(openaiName));
      },
    );
  },

  arize(urls, openaiName) {
    return peer(
      urls.tracesUrl,
      openaiName,
      () => new (require('@arizeai/openinference-instrumentation-openai').OpenAIInstrumentation)(),
      (inst, mod) => inst.manuallyInstrument(mod),
    );
  },

  traceloop(urls, openaiName) {
    return peer(
      urls.tracesUrl,
      openaiName,
      () => new (require('@traceloop/instrumentation-openai').OpenAIInstrumentation)(),
      // Its manual API takes the client class rather than the module.
      (inst, mod) => inst.manuallyInstrument(mod.OpenAI),
    );
  },
};

/** Names of the configurations, in the order the bench prints them. */
const CONFIGS = Object.keys(setups);

function setup(config, openaiName, urls) {
  const make = setups[config];
  if (!make) throw new Error(`unknown configuration ${config}`);
  return make(urls, openaiName);
}

module.exports = { setup, stockProvider, installedVersion, CONFIGS, WEFT_PROJECT };
