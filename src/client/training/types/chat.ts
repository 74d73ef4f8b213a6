import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from '../../inference/chat/types.js';

/**
 * The training service's chat body: the common format plus vLLM sampling options (reference §1.8). Only the
 * commonly used extras are named; any other vLLM field passes through the open index signature.
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

/** A non-streamed chat request to the training service. */
export interface TrainingChatParamsNonStreaming extends ChatCompletionCreateParamsNonStreaming, VllmSamplingParams {}

/** A streamed chat request to the training service. */
export interface TrainingChatParamsStreaming extends ChatCompletionCreateParamsStreaming, VllmSamplingParams {}
