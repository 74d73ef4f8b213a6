import type { ChatCompletionCreateParamsBase } from '../../inference/chat/types.js';

export type { VllmSamplingParams } from '../../inference/chat/types.js';

/**
 * A chat request to the training service. `model` is usually a trained checkpoint,
 * `wandb-artifact:///{entity}/{project}/{name}:step{N}` (an opaque string to weft).
 */
export type TrainingChatParams = ChatCompletionCreateParamsBase;
