import type { ChatFunctionTool, ChatMessage } from '../../inference/chat/types.js';

/** Wire types of trajectories, the training data of RL jobs and of `log` (reference §1.2). */

/** The log-probability of one sampled token, with its top alternatives. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null | undefined;
  top_logprobs: { token: string; logprob: number; bytes?: number[] | null | undefined }[];
  [k: string]: unknown;
}

/**
 * A completion choice the model produced; choices mark the trainable assistant turns. Log-probs are required
 * unless the job's config sets `allow_training_without_logprobs`.
 */
export interface TrajectoryChoice {
  finish_reason: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';
  index: number;
  logprobs?: { content?: TokenLogprob[] | null | undefined; refusal?: TokenLogprob[] | null | undefined; [k: string]: unknown } | null | undefined;
  message: {
    role: 'assistant';
    content?: string | null | undefined;
    refusal?: string | null | undefined;
    tool_calls?: unknown[] | undefined;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** A message (as sent to the model) or a choice (as the model answered). */
export type MessageOrChoice = ChatMessage | TrajectoryChoice;

/** Another conversation belonging to the same trajectory. */
export interface TrajectoryHistory {
  messages_and_choices: MessageOrChoice[];
  tools?: ChatFunctionTool[] | null | undefined;
  [k: string]: unknown;
}

/** One rollout: the conversation and the reward it earned. */
export interface Trajectory {
  messages_and_choices: MessageOrChoice[];
  reward: number;
  tools?: ChatFunctionTool[] | null | undefined;
  additional_histories?: TrajectoryHistory[] | undefined;
  metrics?: Record<string, number | boolean> | undefined;
  auto_metrics?: Record<string, number | boolean> | undefined;
  metadata?: Record<string, number | string | boolean | null> | undefined;
  logs?: string[] | undefined;
  /** ISO date-time. */
  start_time?: string | undefined;
  initial_policy_version?: number | null | undefined;
  final_policy_version?: number | null | undefined;
  [k: string]: unknown;
}

/** Rollouts of the same prompt, compared with one another. */
export interface TrajectoryGroup {
  trajectories: Trajectory[];
  metadata?: Record<string, number | string | boolean | null> | undefined;
  exceptions?: { type: string; message: string; traceback?: string | undefined; [k: string]: unknown }[] | undefined;
  [k: string]: unknown;
}

/** The body of `POST /preview/models/{model_id}/log`. */
export interface LogParams {
  /** `train` or `val` in practice. */
  split: string;
  trajectory_groups: TrajectoryGroup[];
  [k: string]: unknown;
}
