import type { ChatFunctionTool, ChatMessage } from '../../inference/chat/types.js';

/** Wire types of trajectories, the training data of RL jobs and of `log` (reference §1.2). */

/** The log-probability of one sampled token, with its top alternatives. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes?: number[] | null }[];
  [k: string]: unknown;
}

/**
 * A completion choice the model produced; choices mark the trainable assistant turns. Log-probs are required
 * unless the job's config sets `allow_training_without_logprobs`.
 */
export interface TrajectoryChoice {
  finish_reason: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';
  index: number;
  logprobs?: { content?: TokenLogprob[] | null; refusal?: TokenLogprob[] | null; [k: string]: unknown } | null;
  message: {
    role: 'assistant';
    content?: string | null;
    refusal?: string | null;
    tool_calls?: unknown[];
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** A message (as sent to the model) or a choice (as the model answered). */
export type MessageOrChoice = ChatMessage | TrajectoryChoice;

/** Another conversation belonging to the same trajectory. */
export interface TrajectoryHistory {
  messages_and_choices: MessageOrChoice[];
  tools?: ChatFunctionTool[] | null;
  [k: string]: unknown;
}

/** One rollout: the conversation and the reward it earned. */
export interface Trajectory {
  messages_and_choices: MessageOrChoice[];
  reward: number;
  tools?: ChatFunctionTool[] | null;
  additional_histories?: TrajectoryHistory[];
  metrics?: Record<string, number | boolean>;
  auto_metrics?: Record<string, number | boolean>;
  metadata?: Record<string, number | string | boolean | null>;
  logs?: string[];
  /** ISO date-time. */
  start_time?: string;
  initial_policy_version?: number | null;
  final_policy_version?: number | null;
  [k: string]: unknown;
}

/** Rollouts of the same prompt, compared with one another. */
export interface TrajectoryGroup {
  trajectories: Trajectory[];
  metadata?: Record<string, number | string | boolean | null>;
  exceptions?: { type: string; message: string; traceback?: string; [k: string]: unknown }[];
  [k: string]: unknown;
}

/** The body of `POST /preview/models/{model_id}/log`. */
export interface LogParams {
  /** `train` or `val` in practice. */
  split: string;
  trajectory_groups: TrajectoryGroup[];
  [k: string]: unknown;
}
