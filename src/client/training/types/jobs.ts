import type { TrajectoryGroup } from './trajectories.js';

/** Wire types of training jobs (reference §1.2, §1.3). */

/** Optional RL settings; every field may be omitted or null. The service documents a subset of them. */
export interface ExperimentalTrainingConfig {
  learning_rate?: number | null;
  advantage_balance?: number | null;
  epsilon?: number | null;
  epsilon_high?: number | null;
  importance_sampling_level?: 'token' | 'sequence' | 'average' | 'geometric_average' | null;
  kimi_k2_tau?: number | null;
  mask_prob_ratio?: boolean | null;
  max_negative_advantage_importance_sampling_weight?: number | null;
  ppo?: boolean | null;
  precalculate_logprobs?: boolean | null;
  scale_rewards?: boolean | null;
  loss_fn?: 'cispo' | 'ppo' | null;
  normalize_advantages?: boolean | null;
  allow_training_without_logprobs?: boolean | null;
  kl_penalty_coef?: number | null;
  kl_penalty_reference_step?: number | null;
  kl_penalty_step_lag?: number | null;
  kl_penalty_source?: 'current_learner' | 'sample' | null;
  kl_ref_adapter_path?: string | null;
  logprob_calculation_chunk_size?: number | null;
  packed_sequence_length?: number | null;
  plot_tensors?: boolean | null;
  scale_learning_rate_by_reward_std_dev?: boolean | null;
  truncated_importance_sampling?: number | null;
  num_trajectories_learning_rate_multiplier_power?: number | null;
  [k: string]: unknown;
}

/** The body of `POST /preview/training-jobs` (an RL job). */
export interface CreateRlJobParams {
  model_id: string;
  trajectory_groups: TrajectoryGroup[];
  experimental_config?: ExperimentalTrainingConfig | null;
  [k: string]: unknown;
}

/** Settings of an SFT job. */
export interface SftTrainingConfig {
  batch_size?: number | 'auto' | null;
  /** One rate, or one per batch. */
  learning_rate?: number | number[] | null;
  [k: string]: unknown;
}

/** The body of `POST /preview/sft-training-jobs`. */
export interface CreateSftJobParams {
  model_id: string;
  /** A W&B artifact with the training data, e.g. `wandb-artifact:///entity/project/dataset:v0`. */
  training_data_url: string;
  config?: SftTrainingConfig | null;
  experimental_config?: Record<string, unknown> | null;
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
