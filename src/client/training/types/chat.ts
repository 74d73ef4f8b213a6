import type { ChatCompletionSettings, ChatMessage } from '../../inference/chat/types.js';

export type { VllmSamplingParams } from '../../inference/chat/types.js';

/** A message of the legacy `function` role, answering an assistant's `function_call`. */
export interface ChatFunctionMessage {
  role: 'function';
  name: string;
  content: string | null;
  [k: string]: unknown;
}

/**
 * A message under a role of the model's own chat template, which the training service's vLLM passes on. Not part of
 * {@link TrainingChatMessage}, where a role of any name would leave the standard roles' messages unchecked: build one
 * as `customRole as unknown as TrainingChatMessage`.
 */
export interface ChatCustomRoleMessage {
  role: string;
  content?: unknown;
  [k: string]: unknown;
}

/** One message of a training chat request: the inference service's kinds, and the legacy `function` role. */
export type TrainingChatMessage = ChatMessage | ChatFunctionMessage;

/** A chat request to the training service (reference §1.8: only `messages` is required). */
export interface TrainingChatParams extends ChatCompletionSettings {
  /**
   * Usually a trained checkpoint, `wandb-artifact:///{entity}/{project}/{name}:step{N}` (an opaque string to weft).
   * Optional: without it the service answers with the model it serves.
   */
  model?: string | null | undefined;
  messages: TrainingChatMessage[];
}
