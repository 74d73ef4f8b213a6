import { describe, expect, it } from 'vitest';
import { callName } from 'weft';

describe('callName()', () => {
  it('shows a call by its display name, else the name of the span its op was made for, else its op name', () => {
    const ref = 'weave:///team/app/op/chat_gpt-4o-mini:3mQxYz';
    expect(callName({ op_name: ref, display_name: 'Grade row 3', summary: { weave: { trace_name: 'grade' } } })).toBe('Grade row 3');
    expect(callName({ op_name: ref, summary: { weave: { trace_name: 'chat gpt-4o-mini' } } })).toBe('chat gpt-4o-mini');
    // Without a trace name, the op's name out of its ref; a name written through calls.start() as it is.
    expect(callName({ op_name: ref, summary: null })).toBe('chat_gpt-4o-mini');
    expect(callName({ op_name: 'my_op', display_name: null })).toBe('my_op');
  });
});
