import type { ChatCompletionCreateParamsBase } from '../../inference/chat/types.js';

/**
 * vLLM sampling options the training service's chat endpoint accepts beyond the common format (reference
 * §1.8). Only the commonly used ones are named; any other vLLM field passes through the open index signature.
 */
export interface VllmSamplingParams {
  top_k?: number | undefined;
  min_p?: number | undefined;
  repetition_penalty?: number | undefined;
  min_tokens?: number | undefined;
  stop_token_ids?: number[] | undefined;
  include_stop_str_in_output?: boolean | undefined;
  ignore_eos?: boolean | undefined;
  skip_special_tokens?: boolean | undefined;
  chat_template_kwargs?: Record<string, unknown> | undefined;
  include_reasoning?: boolean | undefined;
  reasoning_effort?: 'low' | 'medium' | 'high' | undefined;
  cache_salt?: string | undefined;
  request_id?: string | undefined;
  priority?: number | undefined;
}

/**
 * A chat request to the training service. `model` is usually a trained checkpoint,
 * `wandb-artifact:///{entity}/{project}/{name}:step{N}` (an opaque string to weft).
 */
export type TrainingChatParams = ChatCompletionCreateParamsBase & VllmSamplingParams;
