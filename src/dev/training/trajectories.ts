import { HttpError, type ValidationIssue } from '../http.js';
import type { FieldSpec } from '../validate.js';

/** A trajectory as an RL job reads it (reference §1.2 `Trajectory`); other fields pass through. */
export interface Trajectory {
  messages_and_choices: Record<string, unknown>[];
  reward: number;
}

/** Rollouts of one prompt (reference §1.2 `TrajectoryGroup`). */
export interface TrajectoryGroup {
  trajectories: Trajectory[];
}

/** `trajectory_groups` of an RL job: each trajectory needs its messages and choices, and its reward. */
export const TRAJECTORY_GROUPS: FieldSpec = {
  type: 'array',
  required: true,
  items: {
    type: 'object',
    fields: {
      trajectories: {
        type: 'array',
        required: true,
        items: {
          type: 'object',
          fields: {
            messages_and_choices: { type: 'array', required: true, items: { type: 'object' } },
            reward: { type: 'number', required: true },
          },
        },
      },
    },
  },
};

// A choice (what the model answered: `{finish_reason, index, message, logprobs}`) rather than a message param,
// which has a `role`.
const isChoice = (item: Record<string, unknown>): boolean => !('role' in item) && typeof item.message === 'object' && item.message !== null;

const hasLogprobs = (choice: Record<string, unknown>): boolean => {
  const logprobs = choice.logprobs as { content?: unknown } | null | undefined;
  return typeof logprobs === 'object' && logprobs !== null && Array.isArray(logprobs.content);
};

const WITHOUT_LOGPROBS = 'experimental_config.allow_training_without_logprobs';

/**
 * Checks that every trajectory can be trained on: choices mark the trainable assistant turns, and their
 * logprobs are required unless `allow_training_without_logprobs` is set (reference §1.2). Without the flag,
 * each choice needs `logprobs.content` and a trajectory needs at least one choice; with it, a plain assistant
 * message counts as a trainable turn too. Throws one 422 listing every trajectory that fails.
 */
export function checkTrainable(groups: TrajectoryGroup[], allowWithoutLogprobs: boolean): void {
  const issues: ValidationIssue[] = [];
  groups.forEach((group, g) => {
    group.trajectories.forEach((trajectory, t) => {
      const loc = ['body', 'trajectory_groups', g, 'trajectories', t, 'messages_and_choices'];
      let trainable = false;
      let choiceIssues = 0;
      trajectory.messages_and_choices.forEach((item, i) => {
        if (isChoice(item)) {
          if (allowWithoutLogprobs || hasLogprobs(item)) trainable = true;
          else {
            choiceIssues += 1;
            issues.push({ loc: [...loc, i, 'logprobs'], msg: `A choice needs its logprobs ({content: [...]}) unless ${WITHOUT_LOGPROBS} is true`, type: 'value_error' });
          }
        } else if (allowWithoutLogprobs && item.role === 'assistant') {
          trainable = true;
        }
      });
      // A trajectory whose choices were already named needs no second issue.
      if (!trainable && choiceIssues === 0) {
        const what = allowWithoutLogprobs ? 'an assistant message or a choice' : `a choice with logprobs (or set ${WITHOUT_LOGPROBS})`;
        issues.push({ loc, msg: `A trajectory needs at least one trainable assistant turn: ${what}`, type: 'value_error' });
      }
    });
  });
  if (issues.length > 0) throw new HttpError(422, issues);
}
