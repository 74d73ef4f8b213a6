import type { TrajectoryGroup } from './trajectories.js';

/** Wire types of training jobs (reference §1.2, §1.3). */

/** Optional RL settings; every field may be omitted or null. The service documents a subset of them. */
export interface ExperimentalTrainingConfig {
  learning_rate?: number | null | undefined;
  advantage_balance?: number | null | undefined;
  epsilon?: number | null | undefined;
  epsilon_high?: number | null | undefined;
  importance_sampling_level?: 'token' | 'sequence' | 'average' | 'geometric_average' | null | undefined;
  kimi_k2_tau?: number | null | undefined;
  mask_prob_ratio?: boolean | null | undefined;
  max_negative_advantage_importance_sampling_weight?: number | null | undefined;
  ppo?: boolean | null | undefined;
  precalculate_logprobs?: boolean | null | undefined;
  scale_rewards?: boolean | null | undefined;
  loss_fn?: 'cispo' | 'ppo' | null | undefined;
  normalize_advantages?: boolean | null | undefined;
  allow_training_without_logprobs?: boolean | null | undefined;
  kl_penalty_coef?: number | null | undefined;
  kl_penalty_reference_step?: number | null | undefined;
  kl_penalty_step_lag?: number | null | undefined;
  kl_penalty_source?: 'current_learner' | 'sample' | null | undefined;
  kl_ref_adapter_path?: string | null | undefined;
  logprob_calculation_chunk_size?: number | null | undefined;
  packed_sequence_length?: number | null | undefined;
  plot_tensors?: boolean | null | undefined;
  scale_learning_rate_by_reward_std_dev?: boolean | null | undefined;
  truncated_importance_sampling?: number | null | undefined;
  num_trajectories_learning_rate_multiplier_power?: number | null | undefined;
  [k: string]: unknown;
}

/** The body of `POST /preview/training-jobs` (an RL job). */
export interface CreateRlJobParams {
  model_id: string;
  trajectory_groups: TrajectoryGroup[];
  experimental_config?: ExperimentalTrainingConfig | null | undefined;
  [k: string]: unknown;
}

/** Settings of an SFT job. */
export interface SftTrainingConfig {
  batch_size?: number | 'auto' | null | undefined;
  /** One rate, or one per batch. */
  learning_rate?: number | number[] | null | undefined;
  [k: string]: unknown;
}

/** The body of `POST /preview/sft-training-jobs`. */
export interface CreateSftJobParams {
  model_id: string;
  /** A W&B artifact with the training data, e.g. `wandb-artifact:///entity/project/dataset:v0`. */
  training_data_url: string;
  config?: SftTrainingConfig | null | undefined;
  experimental_config?: Record<string, unknown> | null | undefined;
  [k: string]: unknown;
}

/**
 * A training job, RL or SFT. The service documents only `id`; the other fields have been seen live and their
 * values are not enumerated, so `status` stays an open string.
 */
export interface TrainingJob {
  /** A uuid. */
  id: string;
  status?: string | null;
  training_start?: string | null;
  training_end?: string | null;
  error_message?: string | null;
  [k: string]: unknown;
}
