import type { ChatCompletionCreateParamsBase } from '../../inference/chat/types.js';

/**
 * vLLM sampling options the training service's chat endpoint accepts beyond the common format (reference
 * §1.8). Only the commonly used ones are named; any other vLLM field passes through the open index signature.
 */
export interface VllmSamplingParams {
  top_k?: number;
  min_p?: number;
  repetition_penalty?: number;
  min_tokens?: number;
  stop_token_ids?: number[];
  include_stop_str_in_output?: boolean;
  ignore_eos?: boolean;
  skip_special_tokens?: boolean;
  chat_template_kwargs?: Record<string, unknown>;
  include_reasoning?: boolean;
  reasoning_effort?: 'low' | 'medium' | 'high';
  cache_salt?: string;
  request_id?: string;
  priority?: number;
}

/**
 * A chat request to the training service. `model` is usually a trained checkpoint,
 * `wandb-artifact:///{entity}/{project}/{name}:step{N}` (an opaque string to weft).
 */
export type TrainingChatParams = ChatCompletionCreateParamsBase & VllmSamplingParams;
