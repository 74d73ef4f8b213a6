export {
  TrainingClient,
  type TrainingClientOptions,
  type TrainingChatRequestOptions,
  type SystemCheckResult,
} from './training-client.js';
export { TrainingModels } from './models.js';
export { Checkpoints } from './checkpoints.js';
export { TrainingJobs } from './jobs.js';
export { JobEvents } from './events.js';
export type { WatchJobOptions, WatchJobOutcome } from './watch-job.js';
export { type JobProgress, UNKNOWN_FAILURE, advanceProgress, initialProgress, numericMetrics } from './job-progress.js';
export { TERMINAL_EVENT_TYPES } from './types/events.js';
export type { EventListParams, TrainingJobEvent, TrainingJobEventType } from './types/events.js';
export type * from './types/pagination.js';
export type * from './types/models.js';
export type * from './types/checkpoints.js';
export type * from './types/trajectories.js';
export type * from './types/jobs.js';
export type * from './types/health.js';
export type * from './types/chat.js';
