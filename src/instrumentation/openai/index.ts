export {
  OPENAI_INSTRUMENTATION_NAME,
  OpenAIInstrumentation,
  openAIPatchedYet,
  SUPPORTED_OPENAI_VERSIONS,
} from './instrumentation.js';
export {
  existingSharedOpenAIInstrumentation,
  instrumentOpenAI,
  sharedOpenAIInstrumentation,
  weftInstrumentations,
} from './instrument-openai.js';
export type { OpenAIInstrumentationConfig } from './types.js';
