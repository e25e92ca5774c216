// @cacaoai/client: the cacao.v1 API for browsers and Node.
//
// The messages, enums and the service descriptor are generated from the
// repository's proto/cacao/v1/cacao.proto (src/gen/, `npm run generate`);
// createCacaoClient puts connect-web's Connect transport under them, with retries
// and an optional bearer token.
export * from "./gen/cacao/v1/cacao_pb.js";
export { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from "./gen/google/rpc/error_details_pb.js";
export type { BadRequest, ErrorInfo, PreconditionFailure } from "./gen/google/rpc/error_details_pb.js";
export { bearerInterceptor, cacaoInterceptors, createCacaoClient, createCacaoTransport } from "./client.js";
export type { CacaoClient, CacaoClientOptions, TokenSource } from "./client.js";
export { SEARCH_METHODS, retryDelay, retryInterceptor } from "./retry.js";
export type { RetryEvent, RetryOptions } from "./retry.js";
export { errorReason, explainError, needsToken } from "./errors.js";
export type { ErrorExplanation } from "./errors.js";
export { SEAT_NAMES, seatName } from "./names.js";
export { actionText, className, reviewGame, reviewMark, sentence } from "./review.js";
export { PRACTISED, SOLVED, exercises, judgeTry } from "./practice.js";
export type { Exercise, Verdict } from "./practice.js";
export {
  PUZZLE_K, PUZZLE_TRIES, RATING_FLOOR, START_RATING, afterPuzzle, drawPuzzle, expectedScore, firstProgress, newRating,
} from "./puzzles.js";
export type { Drawn, PuzzleFilters, PuzzleProgress } from "./puzzles.js";
export type { ClassName, ExplanationLike, GameReview, PartLike, ReviewOptions, TempleLike, Wording } from "./review.js";
// the libraries' pieces a user of the messages needs, so that an application
// bundles one copy of each
export { clone, create, equals, fromJson, fromJsonString, toJson, toJsonString } from "@bufbuild/protobuf";
export type { MessageInitShape, MessageShape } from "@bufbuild/protobuf";
export { Code, ConnectError } from "@connectrpc/connect";
export type { CallOptions, Interceptor, Transport } from "@connectrpc/connect";
export { durationFromMs, durationMs } from "@bufbuild/protobuf/wkt";
export type { Duration } from "@bufbuild/protobuf/wkt";
