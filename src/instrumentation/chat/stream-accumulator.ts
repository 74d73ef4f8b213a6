import type { ChatChoice, ChatCompletion, ChatCompletionChunk, ChatToolCall, ChatToolCallDelta, ChatUsage } from './types.js';

interface ToolCallState {
  id?: string;
  type?: string;
  name: string;
  arguments: string;
}

interface ChoiceState {
  index: number;
  role?: string;
  finishReason?: string;
  content: string[];
  refusal: string[];
  reasoning: string[];
  /** By the delta's `index`, which says which call of the choice a fragment extends. */
  toolCalls: Map<number, ToolCallState>;
  functionCall?: { name: string; arguments: string };
}

/**
 * Builds a streamed response back up from its chunks: text, refusal, reasoning and tool-call deltas per choice
 * index, ids and model from the first chunk that has them, usage from the chunk that carries it. The result has
 * the shape of a non-streamed response, so one mapping serves both. Pure: no clock, no I/O.
 */
export class ChatStreamAccumulator {
  private id: string | undefined;
  private model: string | undefined;
  private serviceTier: string | undefined;
  private systemFingerprint: string | undefined;
  private usage: ChatUsage | undefined;
  private readonly choices = new Map<number, ChoiceState>();

  /**
   * @param keepContent Whether to keep text and arguments (only needed when output content is recorded).
   * @param choiceCount How many choices the request asked for (`n`): the response is whole only when each came.
   */
  constructor(
    private readonly keepContent: boolean,
    private readonly choiceCount = 1,
  ) {}

  /** Adds one chunk. Anything that is not chunk-shaped is ignored. */
  add(chunk: ChatCompletionChunk): void {
    if (!chunk || typeof chunk !== 'object') return;
    if (this.id === undefined && typeof chunk.id === 'string' && chunk.id) this.id = chunk.id;
    if (this.model === undefined && typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (typeof chunk.service_tier === 'string') this.serviceTier = chunk.service_tier;
    if (typeof chunk.system_fingerprint === 'string') this.systemFingerprint = chunk.system_fingerprint;
    if (chunk.usage && typeof chunk.usage === 'object') this.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (!choice || typeof choice !== 'object') continue;
      const state = this.choice(typeof choice.index === 'number' ? choice.index : 0);
      if (typeof choice.finish_reason === 'string' && choice.finish_reason) state.finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!delta || typeof delta !== 'object') continue;
      if (typeof delta.role === 'string' && delta.role) state.role = delta.role;
      if (!this.keepContent) continue;
      if (typeof delta.content === 'string') state.content.push(delta.content);
      if (typeof delta.refusal === 'string') state.refusal.push(delta.refusal);
      // vLLM sends both keys, one of them empty or the same text: the first with text, so nothing is lost or doubled.
      const reasoning = delta.reasoning_content || delta.reasoning;
      if (typeof reasoning === 'string') state.reasoning.push(reasoning);
      if (Array.isArray(delta.tool_calls)) {
        (delta.tool_calls as readonly ChatToolCallDelta[]).forEach((fragment, position) => {
          if (!fragment || typeof fragment !== 'object') return;
          const index = typeof fragment.index === 'number' ? fragment.index : position;
          let call = state.toolCalls.get(index);
          if (!call) {
            call = { name: '', arguments: '' };
            state.toolCalls.set(index, call);
          }
          // The first id, or a later one that says more: an id given as '' (as a whole response may have it) is
          // kept, as the whole response's would be, but does not replace one a server sent before.
          if (typeof fragment.id === 'string' && (fragment.id || call.id === undefined)) call.id = fragment.id;
          if (typeof fragment.type === 'string' && fragment.type) call.type = fragment.type;
          // Servers send the name whole, once; some repeat it on every fragment, so it is not concatenated.
          if (typeof fragment.function?.name === 'string' && fragment.function.name && !call.name) call.name = fragment.function.name;
          if (typeof fragment.function?.arguments === 'string') call.arguments += fragment.function.arguments;
        });
      }
      if (delta.function_call && typeof delta.function_call === 'object') {
        state.functionCall ??= { name: '', arguments: '' };
        if (typeof delta.function_call.name === 'string') state.functionCall.name += delta.function_call.name;
        if (typeof delta.function_call.arguments === 'string') state.functionCall.arguments += delta.function_call.arguments;
      }
    }
  }

  /** Whether the response arrived whole: every choice finished and, if `withUsage`, the usage came too. */
  isWhole(withUsage: boolean): boolean {
    if (this.choices.size < this.choiceCount || this.choices.size === 0 || (withUsage && this.usage === undefined)) return false;
    for (const state of this.choices.values()) if (state.finishReason === undefined) return false;
    return true;
  }

  /** What was received so far, shaped as a non-streamed response. */
  toCompletion(): ChatCompletion {
    const choices: ChatChoice[] = [...this.choices.values()]
      .sort((a, b) => a.index - b.index)
      .map((state) => {
        const toolCalls: ChatToolCall[] = [...state.toolCalls.entries()]
          .sort(([a], [b]) => a - b)
          .map(([, call]) => ({ id: call.id, type: call.type ?? 'function', function: { name: call.name, arguments: call.arguments } }));
        return {
          index: state.index,
          finish_reason: state.finishReason ?? null,
          message: {
            role: state.role ?? 'assistant',
            content: state.content.length > 0 ? state.content.join('') : null,
            refusal: state.refusal.length > 0 ? state.refusal.join('') : null,
            reasoning_content: state.reasoning.length > 0 ? state.reasoning.join('') : null,
            tool_calls: toolCalls.length > 0 ? toolCalls : undefined,
            function_call: state.functionCall,
          },
        };
      });
    return {
      id: this.id,
      model: this.model,
      choices,
      usage: this.usage,
      service_tier: this.serviceTier,
      system_fingerprint: this.systemFingerprint,
    };
  }

  private choice(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (!state) {
      state = { index, content: [], refusal: [], reasoning: [], toolCalls: new Map() };
      this.choices.set(index, state);
    }
    return state;
  }
}
