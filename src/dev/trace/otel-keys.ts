/**
 * The attribute keys the trace service reads when it turns a span into a call, in priority order
 * (reference trace-service.md §3.2). The first key with a truthy value wins.
 */

/** Where a call's `inputs` come from. */
export const INPUT_KEYS = [
  'ai.prompt',
  'gen_ai.prompt',
  'input.value',
  'mlflow.spanInputs',
  'gen_ai.input.messages',
  'pydantic_ai.all_messages',
  'traceloop.entity.input',
  'gcp.vertex.agent.tool_call_args',
  'gcp.vertex.agent.llm_request',
  'events.gen_ai.user.message',
  'input',
  'inputs',
] as const;

/** Where a call's `output` comes from. */
export const OUTPUT_KEYS = [
  'ai.response',
  'gen_ai.completion',
  'output.value',
  'gen_ai.output.messages',
  'mlflow.spanOutputs',
  'final_result',
  'gen_ai.content.completion',
  'traceloop.entity.output',
  'gcp.vertex.agent.tool_response',
  'gcp.vertex.agent.llm_response',
  'events.gen_ai.choice',
  'output',
  'outputs',
] as const;

/** Where each field of `summary.usage[model]` comes from. */
export const USAGE_KEYS = {
  input_tokens: ['gen_ai.usage.input_tokens'],
  prompt_tokens: ['gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'ai.usage.promptTokens'],
  completion_tokens: ['gen_ai.usage.completion_tokens', 'llm.token_count.completion', 'ai.usage.completionTokens'],
  output_tokens: ['gen_ai.usage.output_tokens'],
  total_tokens: ['llm.usage.total_tokens', 'llm.token_count.total'],
} as const;

/** Where each known field of a call's `attributes` comes from. */
export const ATTRIBUTE_KEYS = {
  system: ['gen_ai.system', 'llm.system', 'gen_ai.system_instructions', 'system_prompt'],
  kind: ['weave.span.kind', 'traceloop.span.kind', 'openinference.span.kind'],
  model: ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'ai.model.id'],
  provider: ['llm.provider', 'ai.model.provider'],
  model_parameters: ['gen_ai.request', 'llm.invocation_parameters'],
  agent: ['gen_ai.agent.name'],
  tools: ['gen_ai.agent.tools'],
  operation: ['gen_ai.operation.name'],
} as const;

/** The W&B keys that set call fields directly. */
export const WANDB = {
  attributes: 'wandb.attributes',
  displayName: 'wandb.display_name',
  threadId: ['wandb.thread_id', 'gcp.vertex.agent.session_id'],
  isTurn: ['wandb.is_turn', 'gcp.vertex.agent.session_id'],
  runId: 'wandb.wb_run_id',
  runStep: 'wandb.wb_run_step',
  runStepEnd: 'wandb.wb_run_step_end',
  entity: 'wandb.entity',
  project: 'wandb.project',
} as const;

/** Langfuse's timing overrides. */
export const LANGFUSE_TIMES = { start: 'langfuse.startTime', end: 'langfuse.endTime' } as const;

/** The longest op name; longer span names are cut (at a delimiter if one fits) and end in `:<4 hex of sha256>`. */
export const MAX_OP_NAME_LENGTH = 128;
/** The longest display name; a longer one is cut (at a delimiter if one fits) and ends in `...`. */
export const MAX_DISPLAY_NAME_LENGTH = 1024;
