import type { DevContext } from '../context.js';
import { HttpError } from '../http.js';
import type { ObjectSpec } from '../validate.js';
import { optInt, optStr, reqStr, strList } from './fields.js';
import { writeFile, writeObject, writeTable } from './object-writes.js';
import type { ObjSchema } from './types.js';
import { objectRef } from './v2-scope.js';

/** What a kind's create decides: where the version goes, its value, and extra fields for the answer. */
export interface V2Creation {
  objectId: string;
  val: unknown;
  /** Fields the create answer adds to `{digest, object_id, version_index}`, given the new version's ref. */
  answer?: (ref: string) => Record<string, unknown>;
}

/**
 * One collection of versioned objects under `/v2/{entity}/{project}/{collection}`. They are ordinary
 * objects of the object store (so `/obj/read` and `/objs/query` see them too); a kind says how a create
 * body becomes a value and how a stored value reads back.
 */
export interface V2ObjectKind {
  collection: string;
  /** How errors name one object, e.g. `Dataset`. */
  noun: string;
  body: ObjectSpec;
  /** Whether a stored object version belongs to this collection. */
  holds(obj: ObjSchema): boolean;
  create(ctx: DevContext, projectId: string, body: Record<string, unknown>): V2Creation;
  /** The kind's fields of a read, beyond `{object_id, digest, version_index, created_at}`. */
  read(ctx: DevContext, obj: ObjSchema): Record<string, unknown>;
}

// Object ids are names without spaces or slashes; the service derives them from the display name.
function objectIdOf(name: unknown, fallback: string): string {
  const id = typeof name === 'string' ? name.trim().replace(/[^\w.-]+/g, '-') : '';
  return id === '' ? fallback : id.slice(0, 128);
}

// How the SDKs store an object of a weave class: its class in `_type`/`_class_name`, then its fields.
function weaveObject(cls: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { _type: cls, _class_name: cls, _bases: ['Object', 'BaseModel'], ...fields };
}

const field = (obj: ObjSchema, name: string): unknown => (obj.val as Record<string, unknown> | null)?.[name] ?? null;

/** The value of an op version: its source in a file, as the SDKs save it. */
function opValue(ctx: DevContext, projectId: string, source: string): unknown {
  const file = writeFile(ctx, projectId, 'obj.py', Buffer.from(source, 'utf8'));
  return { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': file } };
}

function opSource(ctx: DevContext, obj: ObjSchema): string {
  const file = (field(obj, 'files') as Record<string, string> | null)?.['obj.py'];
  return (file && ctx.store.file(obj.project_id, file)?.content.toString('utf8')) ?? '';
}

/** A kind whose values are weave objects of one class (`holds` reads the class the store recorded). */
function classKind(kind: Omit<V2ObjectKind, 'holds'> & { cls: string }): V2ObjectKind {
  return { ...kind, holds: (obj) => obj.kind === 'object' && obj.base_object_class === kind.cls };
}

const ops: V2ObjectKind = {
  collection: 'ops',
  noun: 'Op',
  body: { strict: true, fields: { name: optStr, source_code: optStr } },
  holds: (obj) => obj.kind === 'op',
  create(ctx, projectId, body) {
    return { objectId: objectIdOf(body.name, 'op'), val: opValue(ctx, projectId, String(body.source_code ?? '')) };
  },
  read: (ctx, obj) => ({ code: opSource(ctx, obj) }),
};

const datasets = classKind({
  collection: 'datasets',
  noun: 'Dataset',
  cls: 'Dataset',
  body: { strict: true, fields: { name: optStr, description: optStr, rows: { type: 'array', required: true, items: { type: 'object' } } } },
  create(ctx, projectId, body) {
    const { digest } = writeTable(ctx, projectId, body.rows as unknown[]);
    const rows = `weave:///${projectId}/table/${digest}`;
    const objectId = objectIdOf(body.name, 'dataset');
    return { objectId, val: weaveObject('Dataset', { name: body.name ?? objectId, description: body.description ?? null, rows }) };
  },
  read: (_ctx, obj) => ({ name: field(obj, 'name'), description: field(obj, 'description'), rows: field(obj, 'rows') }),
});

const scorers = classKind({
  collection: 'scorers',
  noun: 'Scorer',
  cls: 'Scorer',
  body: { strict: true, fields: { name: reqStr, description: optStr, op_source_code: reqStr } },
  create(ctx, projectId, body) {
    const objectId = objectIdOf(body.name, 'scorer');
    const opId = `${objectId}.score`;
    const op = writeObject(ctx, projectId, opId, opValue(ctx, projectId, String(body.op_source_code)));
    const score = objectRef(projectId, 'op', opId, op.digest);
    return {
      objectId,
      val: weaveObject('Scorer', { name: body.name, description: body.description ?? null, score }),
      answer: (ref) => ({ scorer: ref }),
    };
  },
  read: (_ctx, obj) => ({ name: field(obj, 'name'), description: field(obj, 'description'), score_op: field(obj, 'score') }),
});

const models = classKind({
  collection: 'models',
  noun: 'Model',
  cls: 'Model',
  body: { strict: true, fields: { name: reqStr, description: optStr, source_code: reqStr, attributes: { type: 'object', nullable: true } } },
  create(_ctx, _projectId, body) {
    const { name, description, source_code, attributes } = body;
    return {
      objectId: objectIdOf(name, 'model'),
      val: weaveObject('Model', { name, description: description ?? null, source_code, attributes: attributes ?? null }),
      answer: (ref) => ({ model_ref: ref }),
    };
  },
  read: (_ctx, obj) => ({
    name: field(obj, 'name'),
    description: field(obj, 'description'),
    source_code: field(obj, 'source_code') ?? '',
    attributes: field(obj, 'attributes'),
  }),
});

const evaluations = classKind({
  collection: 'evaluations',
  noun: 'Evaluation',
  cls: 'Evaluation',
  body: {
    strict: true,
    fields: {
      name: reqStr,
      description: optStr,
      dataset: reqStr,
      scorers: { ...strList, nullable: true },
      trials: optInt,
      evaluation_name: optStr,
      eval_attributes: { type: 'object', nullable: true },
    },
  },
  create(_ctx, _projectId, body) {
    const trials = body.trials ?? 1;
    if (typeof trials !== 'number' || trials < 1) {
      throw new HttpError(422, [{ loc: ['body', 'trials'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }]);
    }
    const val = weaveObject('Evaluation', {
      name: body.name,
      description: body.description ?? null,
      dataset: body.dataset,
      scorers: body.scorers ?? [],
      trials,
      evaluation_name: body.evaluation_name ?? null,
      metadata: body.eval_attributes ?? null,
    });
    return { objectId: objectIdOf(body.name, 'evaluation'), val, answer: (ref) => ({ evaluation_ref: ref }) };
  },
  read: (_ctx, obj) => ({
    name: field(obj, 'name'),
    description: field(obj, 'description'),
    dataset: field(obj, 'dataset'),
    scorers: field(obj, 'scorers') ?? [],
    trials: field(obj, 'trials') ?? 1,
    evaluation_name: field(obj, 'evaluation_name'),
    // The SDK's evaluation ops are not stored: the dev service does not run evaluations.
    evaluate_op: null,
    predict_and_score_op: null,
    summarize_op: null,
  }),
});

/** The v2 object collections, in the spec's order. */
export const V2_OBJECT_KINDS: readonly V2ObjectKind[] = [evaluations, ops, datasets, scorers, models];
