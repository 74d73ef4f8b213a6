import type { ProjectRef } from '../../config/index.js';
import type { HttpCore } from '../core/http.js';
import { AnnotationQueues } from './annotation-queues.js';
import { Calls } from './calls.js';
import { Costs } from './costs.js';
import { Evaluations } from './evaluations.js';
import { Feedback } from './feedback.js';
import { Files } from './files.js';
import { Images } from './images.js';
import { InferenceInfo } from './inference-info.js';
import { Objs } from './objs.js';
import { Otel } from './otel.js';
import { Refs } from './refs.js';
import type { TraceScope } from './resource.js';
import { Service } from './service.js';
import { Tables } from './tables.js';
import { Threads } from './threads.js';
import { TraceV2 } from './v2/v2.js';

/**
 * Every endpoint of the trace service, grouped as the service groups them. `project_id` is filled in from
 * the client's project wherever an endpoint takes one.
 *
 * @example
 * const client = new Client({ project: 'team/proj' });
 * const roots = await client.trace.calls.streamQuery({ filter: { trace_roots_only: true }, limit: 20 }).collect();
 */
export class TraceClient {
  readonly calls: Calls;
  readonly costs: Costs;
  readonly feedback: Feedback;
  readonly files: Files;
  readonly objs: Objs;
  readonly otel: Otel;
  readonly refs: Refs;
  readonly service: Service;
  readonly tables: Tables;
  readonly threads: Threads;
  readonly inferenceInfo: InferenceInfo;
  readonly annotationQueues: AnnotationQueues;
  readonly evaluations: Evaluations;
  readonly images: Images;
  readonly v2: TraceV2;

  constructor(core: HttpCore, options: { project: ProjectRef }) {
    const scope: TraceScope = { core, project: options.project };
    this.calls = new Calls(scope);
    this.costs = new Costs(scope);
    this.feedback = new Feedback(scope);
    this.files = new Files(scope);
    this.objs = new Objs(scope);
    this.otel = new Otel(scope);
    this.refs = new Refs(scope);
    this.service = new Service(scope);
    this.tables = new Tables(scope);
    this.threads = new Threads(scope);
    this.inferenceInfo = new InferenceInfo(scope);
    this.annotationQueues = new AnnotationQueues(scope);
    this.evaluations = new Evaluations(scope);
    this.images = new Images(scope);
    this.v2 = new TraceV2(scope);
  }
}
