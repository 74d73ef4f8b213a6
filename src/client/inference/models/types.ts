/** Wire types of `GET /models` on the inference service (spec part 2 C, reference §2.5). */

/** One model the inference service can serve. */
export interface Model {
  /** A path-like id, e.g. `meta-llama/Llama-3.1-8B-Instruct`; pass it as `model` to a chat completion. */
  id: string;
  object: 'model';
  /** Unix time; `0` in every observed entry. */
  created: number;
  owned_by: string;
  /** Equals `id` in the observed entries. */
  root?: string;
  [k: string]: unknown;
}

/** The model list object. It may be empty: the service has briefly returned `data: []`. */
export interface ModelList {
  object: 'list';
  data: Model[];
  [k: string]: unknown;
}
