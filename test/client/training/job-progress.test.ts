import { describe, expect, it } from 'vitest';
import { TERMINAL_EVENT_TYPES, type TrainingJobEventType, advanceProgress, initialProgress } from 'weft';

const ALL_TYPES: TrainingJobEventType[] = ['training_started', 'gradient_step', 'training_ended', 'training_failed'];

function progressAfter(...types: TrainingJobEventType[]) {
  return types.reduce((progress, type, i) => advanceProgress(progress, { id: `e${i}`, type, data: {} }), initialProgress());
}

describe('job progress', () => {
  it('is pending before the first event and running from training_started or a gradient_step on', () => {
    expect(initialProgress().status).toBe('pending');
    expect(progressAfter('training_started').status).toBe('running');
    expect(progressAfter('gradient_step').status).toBe('running');
  });

  it('ends, succeeded or failed, at exactly the event types TERMINAL_EVENT_TYPES names, so jobs.watch() and a caller agree', () => {
    for (const type of ALL_TYPES) {
      const ended = ['succeeded', 'failed'].includes(progressAfter('training_started', type).status);
      expect([type, ended]).toEqual([type, TERMINAL_EVENT_TYPES.includes(type)]);
    }
  });
});
