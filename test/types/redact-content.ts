/**
 * A content redactor as an app writes it, from the example of `ContentRedactor`'s documentation, and with the part
 * types weft exports: each must compile under `strict` against the published types.
 */
import {
  type ContentRedactor,
  type GenAIPart,
  type GenAITextPart,
  register,
  weftInstrumentations,
} from 'weft';

// The documented example, as written there.
const masked: ContentRedactor = (messages) => messages.map((m) => ({
  ...m,
  parts: m.parts.map((p) =>
    p.type === 'text' && typeof p.content === 'string' ? { ...p, content: p.content.replace(/\d{16}/g, '[card]') } : p,
  ),
}));

// A type guard over the exported part types, for an app that redacts in several places.
const isText = (part: GenAIPart): part is GenAITextPart => part.type === 'text' && typeof part.content === 'string';
const dropped: ContentRedactor = (messages, direction) =>
  direction === 'output' ? null : messages.map((m) => ({ ...m, parts: m.parts.filter(isText) }));

register({ instrumentations: weftInstrumentations({ captureContent: 'output', redactContent: masked }) });
weftInstrumentations({ redactContent: dropped });
