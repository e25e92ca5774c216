// The service's errors in words: the Connect code, and the field paths and
// descriptions of the google.rpc details (BadRequest, PreconditionFailure, ErrorInfo),
// and the ErrorInfo reason as a value of the API's ErrorReason enum.
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { ErrorReason } from "./gen/cacao/v1/cacao_pb.js";
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from "./gen/google/rpc/error_details_pb.js";

/** What went wrong with a call, for showing to a person or a log. */
export interface ErrorExplanation {
  /** The Connect code in its wire form, e.g. "invalid_argument". */
  code: string;
  /** The service's message, without the code. */
  message: string;
  /** "field: description" for each BadRequest field violation, and "subject:
   *  description" for each PreconditionFailure violation. */
  violations: string[];
  /** The ErrorInfo reason as sent, e.g. "ILLEGAL_ACTION" ("" when there is none). */
  reason: string;
  /** The reason as an ErrorReason value, e.g. ErrorReason.ILLEGAL_ACTION. */
  errorReason: ErrorReason;
}

/** The ErrorReason of an ErrorInfo reason string: ERROR_REASON_UNSPECIFIED for
 *  none, or for a reason newer than this client. */
export function errorReason(reason: string): ErrorReason {
  const value: unknown = (ErrorReason as Record<string, unknown>)[reason];
  return typeof value === "number" ? value : ErrorReason.ERROR_REASON_UNSPECIFIED;
}

/** Any error of a call (a ConnectError, or anything thrown on the way) explained. */
export function explainError(error: unknown): ErrorExplanation {
  const e = ConnectError.from(error);
  const violations = [
    ...e.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations.map((v) => `${v.field}: ${v.description}`)),
    ...e.findDetails(PreconditionFailureSchema).flatMap((d) => d.violations.map((v) => `${v.subject}: ${v.description}`)),
  ];
  const reason = e.findDetails(ErrorInfoSchema)[0]?.reason ?? "";
  return { code: codeToString(e.code), message: e.rawMessage, violations, reason, errorReason: errorReason(reason) };
}

/** True for the codes that mean "the server needs (another) token". */
export function needsToken(error: unknown): boolean {
  return error instanceof ConnectError &&
    (error.code === Code.Unauthenticated || error.code === Code.PermissionDenied);
}
