import { HttpError } from '../http.js';
import { parseVersionRef } from './ref-values.js';

/**
 * The service's business rules for feedback (weave/trace_server/feedback.py), beyond the request's shape.
 * Each broken rule is its `InvalidRequest`: a 400.
 */

// `interface/feedback_types.py`: the built-in types whose payload has a schema, and the typed families.
const REACTION = 'wandb.reaction.1';
const NOTE = 'wandb.note.1';
const MAX_NOTE_LENGTH = 1024;
const ANNOTATION_PREFIX = 'wandb.annotation';
const RUNNABLE_PREFIX = 'wandb.runnable';
// Newer agent types carry refs by rules of their own, not read here: they are let through unchecked.
const AGENT_PREFIX = 'wandb.agent';

/** The parts of a create request the rules read. */
export interface FeedbackRefs {
  feedback_type: string;
  payload: Record<string, unknown>;
  annotation_ref?: string | null;
  runnable_ref?: string | null;
  call_ref?: string | null;
  trigger_ref?: string | null;
}

const invalid = (message: string) => new HttpError(400, message);

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** How many emoji a text holds, counting a sequence (skin tone, ZWJ family, flag, keycap) as one. */
function emojiCount(text: string): number {
  let count = 0;
  for (const { segment } of graphemes.segment(text)) if (EMOJI.test(segment)) count++;
  return count;
}

/** An object's or op's ref as its kind and name, or undefined. */
function refName(ref: string): { kind: string; name: string } | undefined {
  const p = parseVersionRef(ref);
  return p && { kind: p.kind, name: p.objectId };
}

function checkPayloadSchema(type: string, payload: Record<string, unknown>): void {
  if (type === REACTION) {
    if (typeof payload.emoji !== 'string') throw invalid(`Invalid payload for feedback_type ${type}: emoji: Input should be a valid string`);
    // The service stores the emoji with its aliases, so it must be exactly one.
    if (emojiCount(payload.emoji) !== 1) throw invalid('Value of emoji key in payload must be exactly one emoji');
  }
  if (type === NOTE) {
    const note = payload.note;
    if (typeof note !== 'string') throw invalid(`Invalid payload for feedback_type ${type}: note: Input should be a valid string`);
    const length = [...note].length;
    if (length < 1 || length > MAX_NOTE_LENGTH) {
      throw invalid(`Invalid payload for feedback_type ${type}: note: String should have between 1 and ${MAX_NOTE_LENGTH} characters`);
    }
  }
}

/**
 * Checks a feedback create request as the service does before it writes: the payload of a reaction or a
 * note, and which refs a type may carry (an annotation its `annotation_ref` to an object named after the
 * type, a runnable its `runnable_ref`, and any other type none of the four). `hasObject` says whether an
 * object ref names a stored, live version, as the service reads an annotation's spec.
 */
export function checkFeedbackCreate(req: FeedbackRefs, hasObject: (ref: string) => boolean): void {
  const type = req.feedback_type;
  checkPayloadSchema(type, req.payload);
  if (type.startsWith(ANNOTATION_PREFIX)) {
    const name = type.slice(ANNOTATION_PREFIX.length + 1);
    if (!type.startsWith(`${ANNOTATION_PREFIX}.`)) throw invalid(`Invalid annotation feedback type: ${type}`);
    if (!req.annotation_ref) throw invalid('annotation_ref is required for annotation feedback');
    const ref = refName(req.annotation_ref);
    if (ref?.kind !== 'object') throw invalid(`Invalid ref: ${req.annotation_ref}`);
    if (ref.name !== name) throw invalid(`annotation_ref must point to an object with name ${name}`);
    if (!('value' in req.payload)) throw invalid(`Invalid payload for feedback_type ${type}: value: Field required`);
    if (!hasObject(req.annotation_ref)) throw invalid(`Annotation ref ${req.annotation_ref} not found`);
    return;
  }
  if (req.annotation_ref) throw invalid('annotation_ref is not allowed for non-annotation feedback');
  if (type.startsWith(RUNNABLE_PREFIX)) {
    const name = type.slice(RUNNABLE_PREFIX.length + 1);
    if (!type.startsWith(`${RUNNABLE_PREFIX}.`)) throw invalid(`Invalid runnable feedback type: ${type}`);
    if (!req.runnable_ref) throw invalid('runnable_ref is required for runnable feedback');
    const ref = refName(req.runnable_ref);
    if (ref?.kind !== 'object' && ref?.kind !== 'op') throw invalid(`Invalid ref: ${req.runnable_ref}`);
    if (ref.name !== name) throw invalid(`runnable_ref must point to an object with name ${name}`);
    if (ref.kind === 'op' && !req.call_ref) throw invalid('call_ref is required for runnable feedback on ops');
    if (!('output' in req.payload)) throw invalid(`Invalid payload for feedback_type ${type}: output: Field required`);
    return;
  }
  if (type.startsWith(AGENT_PREFIX)) return;
  for (const key of ['runnable_ref', 'call_ref', 'trigger_ref'] as const) {
    if (req[key]) throw invalid(`${key} is not allowed for non-runnable feedback`);
  }
}
