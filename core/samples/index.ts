/**
 * The payload creator's pure core (docs/creator-inference.md): read a pasted sample, infer its
 * fields, suggest where each column goes. Web-standard only, so the studio bundles it for the
 * browser as it is.
 */
export {
  type ColumnGuess,
  type Evidence,
  eventNameGuess,
  type Guesses,
  guessChoices,
  type Question,
  type TimeWindow,
} from './guess.ts';
export { type InferOptions, inferFields, toFieldSpecs } from './infer.ts';
export {
  DEFAULT_MAX_BYTES,
  type DetectedFormat,
  decodeSample,
  detectFormat,
  type ParseOptions,
  parseSample,
  type SampleEncoding,
} from './parse.ts';
export type {
  InferredField,
  InferredFormat,
  InferredType,
  ParsedSample,
  SampleFormat,
  SampleProblem,
} from './sample.ts';
export { fieldPaths } from './specs.ts';
export {
  CONTEXT_TARGETS,
  type ContextTarget,
  DATA_FIELDS,
  type DataField,
  type MappingSuggestion,
  type SuggestColumn,
  suggestMappings,
} from './suggest.ts';
