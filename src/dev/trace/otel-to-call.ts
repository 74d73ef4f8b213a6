import { createHash } from 'node:crypto';
import { type DecodedSpan, StatusCodeValue } from '../../otlp/index.js';
import { expandAttributes, firstMatch, isTruthy, lookup, type Tree } from './attribute-tree.js';
import {
  ATTRIBUTE_KEYS,
  INPUT_KEYS,
  LANGFUSE_TIMES,
  MAX_DISPLAY_NAME_LENGTH,
  MAX_OP_NAME_LENGTH,
  OUTPUT_KEYS,
  USAGE_KEYS,
  WANDB,
} from './otel-keys.js';
import { shortenName } from './shorten-name.js';
import { isoFromMicros } from './timestamps.js';
import type { CallSchema, LLMUsage, SummaryMap } from './types.js';

/** Thrown for a span the service refuses; counted in `partial_success.rejected_spans`. */
export class SpanRejected extends Error {
  override readonly name = 'SpanRejected';
}

// A long op name ends in 4 hex of its SHA-256 instead of `...`, so that similar long names stay apart.
function shortenOpName(name: string): string {
  const suffix = `:${createHash('sha256').update(name).digest('hex').slice(0, 4)}`;
  return shortenName(name, MAX_OP_NAME_LENGTH, suffix, false);
}

// Microseconds, as the real service stores them: spans a few hundred µs apart must keep their order.
const nsToIso = (ns: bigint): string => isoFromMicros(ns / 1_000n);

// The times a call can have: from the epoch to the end of year 9999 (four-digit years, as the real service's
// datetimes). OTLP's own unsigned 64-bit span times always fall in it.
const LATEST_NS = BigInt(Date.UTC(9999, 11, 31, 23, 59, 59, 999)) * 1_000_000n + 999_999n;

function inCallRange(ns: bigint): bigint | undefined {
  return ns >= 0n && ns <= LATEST_NS ? ns : undefined;
}

// Langfuse sends an ISO string, unix nanoseconds, or float seconds. A value that is none of these, or names
// a time no call can have, is ignored: the span's own time stands, as a lenient service would keep it.
function langfuseTime(value: unknown): bigint | undefined {
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) return inCallRange(BigInt(value));
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : inCallRange(BigInt(ms) * 1_000_000n);
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    return inCallRange(Number.isInteger(value) && value > 1e15 ? BigInt(value) : BigInt(Math.round(value * 1e9)));
  }
  return undefined;
}

function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function readUsage(tree: Tree): LLMUsage | undefined {
  const usage: LLMUsage = {};
  for (const [field, keys] of Object.entries(USAGE_KEYS) as [keyof LLMUsage, readonly string[]][]) {
    for (const k of keys) {
      const n = toInt(lookup(tree, k));
      if (n !== undefined) {
        usage[field] = n;
        break;
      }
    }
  }
  if (usage.total_tokens === undefined && usage.prompt_tokens !== undefined && usage.completion_tokens !== undefined) {
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function readAttributes(tree: Tree): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const [field, keys] of Object.entries(ATTRIBUTE_KEYS)) {
    const found = firstMatch(tree, keys);
    if (found) attributes[field] = found.value;
  }
  return attributes;
}

/**
 * The call's thread id. The service's call schema takes a string: a number, or an object or list parsed from
 * JSON text, fails it, so such a span is refused rather than stored with a made-up id.
 */
function threadIdOf(span: DecodedSpan, tree: Tree): string | null {
  const found = firstMatch(tree, WANDB.threadId);
  if (!found) return null;
  if (typeof found.value === 'string') return found.value;
  const got = Array.isArray(found.value) ? 'a list' : typeof found.value === 'object' ? 'an object' : `a ${typeof found.value}`;
  throw new SpanRejected(`span ${span.spanId} ("${span.name}"): ${found.key} must be a string, got ${got}`);
}

function projectRunId(projectId: string, value: unknown): string | null {
  if (!isTruthy(value)) return null;
  const id = String(value);
  return id.includes('/') || id.includes(':') ? id : `${projectId}:${id}`;
}

/**
 * Turns one OTLP span into one call the way the real trace service does (reference trace-service.md §3):
 * inputs and output from the first matching key (de-nested when the key is `input(s)`/`output(s)`), usage
 * under `summary.usage[model]` with its total, known attributes plus a `wandb.attributes` merge (or every
 * attribute when nothing is recognised), display name, thread and turn ids, status, latency and exception.
 * `op_name` is the span name, shortened; the route then rewrites it to the ref of the span name's op
 * (see otel-ops.ts), as the service does once the calls are built.
 *
 * @throws {SpanRejected} for ids that are not hex, attribute paths that conflict, or a thread id that is not a string.
 */
export function spanToCall(span: DecodedSpan, projectId: string): CallSchema {
  if (!/^[0-9a-f]{32}$/.test(span.traceId) || /^0+$/.test(span.traceId)) {
    throw new SpanRejected(`span "${span.name}": trace_id must be 16 non-zero bytes`);
  }
  if (!/^[0-9a-f]{16}$/.test(span.spanId) || /^0+$/.test(span.spanId)) {
    throw new SpanRejected(`span "${span.name}": span_id must be 8 non-zero bytes`);
  }
  let tree: Tree;
  try {
    tree = expandAttributes(span.attributes);
  } catch (error) {
    throw new SpanRejected(`span ${span.spanId} ("${span.name}"): ${(error as Error).message}`);
  }

  const input = firstMatch(tree, INPUT_KEYS);
  let inputs: Record<string, unknown> = {};
  if (input) {
    const denest =
      (input.key === 'input' || input.key === 'inputs') &&
      input.value !== null &&
      typeof input.value === 'object' &&
      !Array.isArray(input.value);
    inputs = denest ? (input.value as Record<string, unknown>) : { [input.key]: input.value };
  }

  const out = firstMatch(tree, OUTPUT_KEYS);
  let output: unknown = null;
  if (out) output = out.key === 'output' || out.key === 'outputs' ? out.value : { [out.key]: out.value };

  const usage = readUsage(tree);
  let attributes = readAttributes(tree);
  const matchedAnything = input !== undefined || out !== undefined || usage !== undefined || Object.keys(attributes).length > 0;
  const custom = lookup(tree, WANDB.attributes);
  if (custom !== null && typeof custom === 'object' && !Array.isArray(custom)) {
    attributes = { ...attributes, ...(custom as Record<string, unknown>) };
  }
  if (!matchedAnything) attributes = { ...tree, ...attributes };

  const modelParameters = attributes.model_parameters as Record<string, unknown> | undefined;
  const usageKey =
    typeof attributes.model === 'string' && attributes.model
      ? attributes.model
      : typeof modelParameters?.model === 'string' && modelParameters.model
        ? modelParameters.model
        : 'usage';

  let startNs = span.startTimeUnixNano;
  let endNs = span.endTimeUnixNano;
  startNs = langfuseTime(lookup(tree, LANGFUSE_TIMES.start)) ?? startNs;
  endNs = langfuseTime(lookup(tree, LANGFUSE_TIMES.end)) ?? endNs;

  const opName = shortenOpName(span.name || 'unnamed');
  const summary: SummaryMap = {
    weave: { trace_name: opName, latency_ms: Number((endNs - startNs) / 1_000_000n) },
  };
  if (usage) summary.usage = { [usageKey]: usage };
  if (span.status.code === StatusCodeValue.OK) summary.weave!.status = 'success';
  if (span.status.code === StatusCodeValue.ERROR) summary.weave!.status = 'error';

  const displayName = lookup(tree, WANDB.displayName);
  const threadId = threadIdOf(span, tree);
  const isTurn = firstMatch(tree, WANDB.isTurn) !== undefined;

  return {
    id: span.spanId,
    project_id: projectId,
    op_name: opName,
    display_name: isTruthy(displayName) ? shortenName(String(displayName), MAX_DISPLAY_NAME_LENGTH) : null,
    trace_id: span.traceId,
    parent_id: span.parentSpanId ?? null,
    thread_id: threadId,
    turn_id: isTurn && threadId ? span.spanId : null,
    started_at: nsToIso(startNs),
    ended_at: nsToIso(endNs),
    attributes,
    inputs,
    output,
    exception: span.status.code === StatusCodeValue.ERROR ? span.status.message : null,
    summary,
    wb_user_id: null,
    wb_run_id: projectRunId(projectId, lookup(tree, WANDB.runId)),
    wb_run_step: toInt(lookup(tree, WANDB.runStep)) ?? null,
    wb_run_step_end: toInt(lookup(tree, WANDB.runStepEnd)) ?? null,
    deleted_at: null,
  };
}

/**
 * The project a span belongs to: the resource's `wandb.entity`/`wandb.project` (the current docs), else the
 * request's `project_id` header (the older docs).
 *
 * @throws {SpanRejected} when neither names a project: the service would not know where the call goes.
 */
export function spanProject(span: DecodedSpan, header: string | undefined): string {
  const entity = span.resource[WANDB.entity];
  const project = span.resource[WANDB.project];
  const named = (value: unknown): value is string => typeof value === 'string' && value !== '';
  if (named(entity) && named(project)) return `${entity}/${project}`;
  if (header && /^[^/\s]+\/[^/\s]+$/.test(header)) return header;
  const missing = [WANDB.entity, WANDB.project].filter((key) => !named(span.resource[key])).join(' and ');
  const sent = header === undefined ? 'no project_id header' : `a project_id header "${header}" that is not entity/project`;
  throw new SpanRejected(
    `span ${span.spanId} ("${span.name}"): no project: the resource lacks ${missing} and the request has ${sent}; ` +
      'set both resource attributes or send the header project_id: <entity>/<project>',
  );
}
