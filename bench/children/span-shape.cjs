// The span the throughput bench pushes through each pipeline: what a traced chat call looks like, about
// ten attributes plus a 2 KB input-messages JSON.
'use strict';

const question = 'Summarise the following support ticket in two sentences and suggest one next step. '.repeat(12);
const inputMessages = JSON.stringify([
  { role: 'system', parts: [{ type: 'text', content: 'You are a helpful support assistant for a bench company.' }] },
  { role: 'user', parts: [{ type: 'text', content: question }] },
  { role: 'assistant', parts: [{ type: 'text', content: 'Could you share the order number?' }] },
  { role: 'user', parts: [{ type: 'text', content: `Order 12345. ${question}`.slice(0, 900) }] },
]);
const outputMessages = JSON.stringify([
  { role: 'assistant', parts: [{ type: 'text', content: 'The customer reports a late delivery. Offer a refund.' }], finish_reason: 'stop' },
]);

const attributes = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o-mini',
  'gen_ai.request.temperature': 0.2,
  'gen_ai.request.max_tokens': 256,
  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  'gen_ai.response.finish_reasons': ['stop'],
  'gen_ai.usage.input_tokens': 512,
  'gen_ai.usage.output_tokens': 24,
  'server.address': 'api.openai.com',
  'server.port': 443,
  'gen_ai.input.messages': inputMessages,
  'gen_ai.output.messages': outputMessages,
};

module.exports = { SPAN_NAME: 'chat gpt-4o-mini', attributes, inputMessagesBytes: Buffer.byteLength(inputMessages) };
